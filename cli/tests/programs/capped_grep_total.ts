// How many TODO items are there across the generated modules, and in how many files?
await tools.bash({
  command:
    'mkdir -p gen && for i in $(seq 1 30); do for j in $(seq 1 12); do echo "// TODO item $i.$j"; done > gen/mod$i.ts; done',
  description: "Generate modules with TODO items",
});
const r = await tools.grep({ pattern: "TODO item", path: "gen" });
const files = new Set(r.matches.map((m) => m.path));
console.log(`${r.matches.length} TODO items in ${files.size} files`);
return { total: r.total, truncated: r.truncated };
