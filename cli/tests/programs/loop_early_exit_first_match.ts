// Find the first source file that mentions "persist", reading files one by one.
const { paths } = await tools.glob({ pattern: "src/**/*.ts" });
const ordered = [...paths].sort();
let checked = 0;
for (const p of ordered) {
  checked++;
  const r = await tools.read({ file_path: p });
  const hit = r.lines.find((l) => /persist/i.test(l.text));
  if (hit) {
    return { file: p, line: hit.number, text: hit.text.trim(), checked, of: ordered.length };
  }
}
return { file: null, checked };
