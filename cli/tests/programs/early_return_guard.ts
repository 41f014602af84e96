const lock = await tools.glob({ pattern: "package-lock.json" });
if (lock.total === 0) {
  return "No lockfile: run `npm install` first.";
}
const r = await tools.read({ file_path: "package-lock.json" });
return r.total_lines;
