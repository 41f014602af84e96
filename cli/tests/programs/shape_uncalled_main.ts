interface Row {
  sku: string;
  name: string;
  stock: number;
}

async function loadRows(): Promise<Row[]> {
  const csv = await tools.read({ file_path: "data/products.csv" });
  const [, ...body] = csv.lines.map((l) => l.text).filter(Boolean);
  return body.map((line) => {
    const [sku, name, , , stock] = line.split(",");
    return { sku, name, stock: Number(stock) };
  });
}

async function main() {
  const rows = await loadRows();
  const out = rows.filter((r) => r.stock === 0).map((r) => `${r.sku} ${r.name}`);
  return out.length ? `Out of stock: ${out.join(", ")}` : "Everything in stock";
}
