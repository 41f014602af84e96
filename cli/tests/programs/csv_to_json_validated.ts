const csv = await tools.read({ file_path: "data/products.csv" });
const [head, ...body] = csv.lines.map((l) => l.text.split(","));
const products = body.map((cells) =>
  Object.fromEntries(head.map((h, i) => [h, /^\d+$/.test(cells[i]) ? Number(cells[i]) : cells[i]])),
);
await tools.write({ file_path: "data/products.json", content: JSON.stringify(products, null, 2) + "\n" });
const check = await tools.bash({
  command: "python3 -c 'import json; d = json.load(open(\"data/products.json\")); print(len(d), sum(p[\"stock\"] for p in d))'",
  description: "Validate generated JSON with Python",
});
return { written: products.length, python: check.stdout.trim(), first: products[0] };
