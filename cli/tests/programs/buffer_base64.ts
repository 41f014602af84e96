const r = await tools.read({ file_path: "data/config.json" });
const text = r.lines.map((l) => l.text).join("\n");
return Buffer.from(text).toString("base64").slice(0, 16);
