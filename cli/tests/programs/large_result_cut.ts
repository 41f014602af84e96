// Build a result far over the 50,000 character limit.
const csv = await tools.read({ file_path: "data/products.csv" });
const rows: string[] = [];
for (let i = 0; i < 2000; i++) {
  const line = csv.lines[1 + (i % 7)].text;
  rows.push(`${String(i).padStart(4, "0")} ${line}`);
}
return rows.join("\n");
