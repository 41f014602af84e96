const candidates = ["shopcart.config.json", "config/shopcart.json", ".shopcartrc", "data/config.json"];
const tried: string[] = [];
for (const file_path of candidates) {
  try {
    const r = await tools.read({ file_path });
    const cfg = JSON.parse(r.lines.map((l) => l.text).join("\n"));
    return { found: file_path, tried, threshold: cfg.lowStockThreshold };
  } catch (err) {
    if (!(err instanceof ToolCallError)) throw err;
    tried.push(file_path);
  }
}
return { found: null, tried };
