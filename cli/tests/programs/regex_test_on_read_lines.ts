// The model counts import lines, testing the line objects instead of their text.
const r = await tools.read({ file_path: "src/report.ts" });
const imports = r.lines.filter((l) => /^import /.test(l)).length;
return { imports };
