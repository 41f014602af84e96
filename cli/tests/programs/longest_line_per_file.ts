const { paths } = await tools.glob({ pattern: "**/*.{ts,md}" });
const rows = [];
for (const p of paths.sort()) {
  const r = await tools.read({ file_path: p });
  const longest = r.lines.reduce((a, b) => (b.text.length > a.text.length ? b : a));
  rows.push({ p, line: longest.number, len: longest.text.length });
}
const over80 = rows.filter((r) => r.len > 80);
console.table?.(over80);
return over80.map((r) => `${r.p}:${r.line} (${r.len} chars)`);
