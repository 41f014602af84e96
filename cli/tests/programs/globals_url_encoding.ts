const pkg = JSON.parse(
  (await tools.read({ file_path: "package.json" })).lines.map((l) => l.text).join("\n"),
);
const url = new URL(`https://registry.npmjs.org/${pkg.name}`);
url.searchParams.set("version", pkg.version);
const bytes = new TextEncoder().encode("€1.00");
const id = crypto.randomUUID();
return {
  href: url.href,
  host: url.host,
  utf8Bytes: bytes.length,
  decoded: new TextDecoder().decode(bytes),
  b64: btoa(pkg.name),
  back: atob(btoa(pkg.name)),
  uuidShape: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id),
  cloned: structuredClone({ deps: pkg.dependencies }),
};
