// Cloudflare codemode style: the program is a single async arrow function.
async () => {
  const { matches } = await tools.grep({ pattern: "^export (function|class)", path: "src" });
  return matches.map((m) => `${m.path}: ${m.text.replace(/\s*\{$/, "")}`);
}
