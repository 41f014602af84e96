const csv = await tools.read({ file_path: "data/products.csv" });
const [header, ...rows] = csv.lines.map((l) => l.text.split(","));
const idx = (name: string) => header.indexOf(name);
const byCategory: Record<string, { items: number; valueCents: number }> = {};
for (const row of rows) {
  const cat = row[idx("category")];
  const value = Number(row[idx("price_cents")]) * Number(row[idx("stock")]);
  byCategory[cat] ??= { items: 0, valueCents: 0 };
  byCategory[cat].items++;
  byCategory[cat].valueCents += value;
}
const lines = Object.entries(byCategory)
  .sort(([, a], [, b]) => b.valueCents - a.valueCents)
  .map(([cat, v]) => `${cat.padEnd(8)} ${String(v.items).padStart(2)} items  $${(v.valueCents / 100).toFixed(2)}`);
return lines.join("\n");
