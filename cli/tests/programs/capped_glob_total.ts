// Count the fixture files per extension.
await tools.bash({
  command: "mkdir -p fixtures && for i in $(seq 1 140); do echo $i > fixtures/case$i.json; done && for i in $(seq 1 20); do echo $i > fixtures/note$i.txt; done",
  description: "Create fixture files",
});
const { paths, total, truncated } = await tools.glob({ pattern: "fixtures/*" });
const byExt: Record<string, number> = {};
for (const p of paths) {
  const ext = p.split(".").pop()!;
  byExt[ext] = (byExt[ext] ?? 0) + 1;
}
// Sorted: files made within one clock tick share a modification time.
const sorted = Object.fromEntries(Object.entries(byExt).sort());
return { listed: paths.length, total, truncated, byExt: sorted };
