const path = "data/config.json";
const current = JSON.parse((await tools.read({ file_path: path })).lines.map((l) => l.text).join("\n"));
current.features.discounts = true;
current.lowStockThreshold = 20;
await tools.write({ file_path: path, content: JSON.stringify(current, null, 2) + "\n" });
const low = await tools.bash({ command: "python3 scripts/stock_report.py | cut -f1", description: "Recompute low stock list" });
return { threshold: current.lowStockThreshold, lowStock: low.stdout.trim().split("\n") };
