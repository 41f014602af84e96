const raw = await tools.read({ file_path: "data/config.json" });
const config = <{ taxRate: number }>JSON.parse(raw.lines.map((l) => l.text).join("\n"));
return config.taxRate;
