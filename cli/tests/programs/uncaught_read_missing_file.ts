const pkg = await tools.read({ file_path: "package.json", limit: 3 });
console.log("package.json starts with", pkg.lines[0].text);
const lock = await tools.read({ file_path: "package-lock.json" });
return lock.total_lines;
