function parseRow(line: string) {
  const [sku, name, category, price, stock] = line.split(",");
  if (!stock) throw new Error(`bad row: ${line}`);
  return { sku, name, category, price: Number(price), stock: Number(stock) };
}

const r = await tools.read({ file_path: "README.md", limit: 3 });
const rows = r.lines.slice(1).map((l) => parseRow(l.text));
return rows;
