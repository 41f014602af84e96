// Shape data: call tools in a loop, group and sort the results, return only a summary.
interface Row { n: number; parity: "even" | "odd" }
const rows: Row[] = [];
for (let i = 1; i <= 10; i++) {
  const n = await tools.add({ a: i, b: i * 2 });
  rows.push({ n, parity: n % 2 === 0 ? "even" : "odd" });
}
const groups: Record<string, number[]> = {};
for (const row of rows) (groups[row.parity] ??= []).push(row.n);
for (const key of Object.keys(groups)) groups[key].sort((a, b) => b - a);
return { count: rows.length, largest: groups.even?.[0], groups };
