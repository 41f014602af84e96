const r = await tools.read({ file_path: "data/products.csv" });
const text = r.lines.map((l) => l.text).join("\n");
const rows = JSON.parse(text);
return rows.length;
