enum Level {
  Low = "low",
  High = "high",
}
const cfg = await tools.read({ file_path: "data/config.json" });
return cfg.total_lines > 5 ? Level.High : Level.Low;
