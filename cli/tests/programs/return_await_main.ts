const sumStock = async (): Promise<number> => {
  const r = await tools.bash({
    command: "tail -n +2 data/products.csv | cut -d, -f5 | paste -sd+ | bc",
    description: "Sum the stock column",
  });
  return Number(r.stdout.trim());
};

async function main() {
  const [stock, lines] = await Promise.all([
    sumStock(),
    tools.read({ file_path: "data/products.csv" }).then((r) => r.total_lines - 1),
  ]);
  return { products: lines, units: stock };
}

return await main();
