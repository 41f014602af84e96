const rows: string[][] = [];
const csv = await tools.read({ file_path: "data/products.csv" });
for (let i = 0; ; i++) {
  rows.push(csv.lines.map((l) => l.text + i));
}
