// Find TODO and FIXME comments across the workspace and summarise them by file:
// how many each file has and the first one, busiest files first.
interface FileSummary { path: string; count: number; first: string }

const found = await tools.grep({ pattern: "\\b(TODO|FIXME)\\b" });
const byFile = new Map<string, FileSummary>();
for (const m of found.matches) {
  let entry = byFile.get(m.path);
  if (!entry) {
    entry = { path: m.path, count: 0, first: `${m.line}: ${m.text.trim()}` };
    byFile.set(m.path, entry);
  }
  entry.count++;
}
// A capped result lists the first 250 matches only: count the other files' exactly.
if (found.truncated) {
  for (const entry of byFile.values()) {
    entry.count = (await tools.grep({ pattern: "\\b(TODO|FIXME)\\b", path: entry.path })).total;
  }
}
const files = [...byFile.values()].sort((a, b) => b.count - a.count || a.path.localeCompare(b.path));
for (const f of files) console.log(`${String(f.count).padStart(4)}  ${f.path}  (first: ${f.first})`);
return {
  total: found.total,
  files: found.files,
  listed: files.length,
  complete: !found.truncated,
};
