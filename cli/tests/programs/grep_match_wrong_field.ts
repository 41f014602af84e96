const r = await tools.grep({ pattern: "TODO", path: "src" });
// grep matches have `path`, not `file`
const files = [...new Set(r.matches.map((m) => m.file))];
console.log(`${files.length} files with TODOs`);
return files;
