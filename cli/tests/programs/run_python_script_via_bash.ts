const r = await tools.bash({
  command: "python3 scripts/stock_report.py",
  description: "List low-stock products",
});
if (r.exit_code !== 0) return `failed: ${r.stderr}`;
const low = r.stdout.trim().split("\n").map((line) => {
  const [sku, stock] = line.split("\t");
  return { sku, stock: Number(stock) };
});
return { count: low.length, low };
