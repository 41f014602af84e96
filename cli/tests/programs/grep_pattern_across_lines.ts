// The model looks for an export block spanning lines with [\s\S]*? (the twelfth fresh pass got
// 0 matches and no word of why).
await tools.write({
  file_path: "index.js",
  content: "module.exports = {\n  SemVer,\n  parse,\n}\n",
});
const r = await tools.grep({ pattern: "module.exports = \\{[\\s\\S]*?SemVer", path: "index.js" });
return r.total;
