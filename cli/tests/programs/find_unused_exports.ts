// Which exported names of src/ are never mentioned outside their own file?
const exported = await tools.grep({ pattern: "^export (function|class|interface) \\w+", path: "src" });
const report: { name: string; file: string; usedIn: string[] }[] = [];
for (const m of exported.matches) {
  const name = m.text.match(/^export (?:function|class|interface) (\w+)/)![1];
  const uses = await tools.grep({ pattern: `\\b${name}\\b` });
  const usedIn = [...new Set(uses.matches.map((u) => u.path))].filter((p) => p !== m.path);
  report.push({ name, file: m.path, usedIn });
}
return report.filter((r) => r.usedIn.length === 0).map((r) => `${r.name} (${r.file})`);
