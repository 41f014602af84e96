const csv = await tools.read({ file_path: "data/products.csv" });
let total = 0n;
for (const l of csv.lines.slice(1)) {
  const [, , , price, stock] = l.text.split(",");
  total += BigInt(price) * BigInt(stock);
}
return total;
