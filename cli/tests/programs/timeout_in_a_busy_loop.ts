// ptc-limits: timeout_ms=1000
// The model counts words with a loop whose index never advances.
const r = await tools.read({ file_path: "README.md" });
const words = r.lines.map((l) => l.text).join(" ").split(/\s+/);
let count = 0;
for (let i = 0; i < words.length; ) {
  if (words[i].length > 3) count++;
}
return count;
