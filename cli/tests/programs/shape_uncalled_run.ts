async function run() {
  const cfg = await tools.read({ file_path: "data/config.json" });
  const config = JSON.parse(cfg.lines.map((l) => l.text).join("\n"));
  const flags = Object.entries(config.features)
    .map(([k, v]) => `${k}=${v ? "on" : "off"}`)
    .join(" ");
  console.log(`currency ${config.currency}, tax ${config.taxRate * 100}%`);
  return flags;
}
