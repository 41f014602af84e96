// More than 10 calls at once: the extra ones should queue, not fail.
const files = Array.from({ length: 20 }, (_, i) => ["README.md", "package.json", "src/cart.ts", "data/products.csv"][i % 4]);
const results = await Promise.all(files.map((f) => tools.read({ file_path: f })));
const lines = results.map((r) => r.total_lines);
return { calls: results.length, distinct: [...new Set(lines)].sort((a, b) => a - b) };
