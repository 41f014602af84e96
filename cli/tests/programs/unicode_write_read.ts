const text = "Prix: 1,00 €\nTee: 緑茶 🍵\nEnde\n";
const w = await tools.write({ file_path: "docs/i18n.txt", content: text });
const r = await tools.read({ file_path: "docs/i18n.txt" });
const wc = await tools.bash({ command: "wc -c < docs/i18n.txt", description: "Count bytes of file" });
return { bytes: w.bytes, wcBytes: Number(wc.stdout.trim()), lines: r.lines.map((l) => l.text) };
