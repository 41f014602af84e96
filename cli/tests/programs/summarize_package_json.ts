const file = await tools.read({ file_path: "package.json" });
const pkg = JSON.parse(file.lines.map((l) => l.text).join("\n"));
return {
  name: pkg.name,
  version: pkg.version,
  scripts: Object.keys(pkg.scripts),
  dependencies: Object.keys(pkg.dependencies ?? {}).length,
  devDependencies: Object.keys(pkg.devDependencies ?? {}).sort(),
};
