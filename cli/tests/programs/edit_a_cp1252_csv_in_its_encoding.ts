// The model renames a category in a Windows-1252 export with edit (the eighteenth fresh pass was
// refused and had to round-trip it through iconv); the € and umlauts elsewhere stay as bytes.
await tools.bash({
  command: "printf 'Kategorie;Betrag\\r\\nB\\xfcro;12,50 \\x80\\r\\nReise;99,00 \\x80\\r\\n' > data/kosten.csv",
  description: "Make a cp1252 export",
});
const e = await tools.edit({ file_path: "data/kosten.csv", old_string: "Büro;", new_string: "Office;" });
const r = await tools.read({ file_path: "data/kosten.csv" });
const bytes = await tools.bash({ command: "od -An -c data/kosten.csv | tr -s ' '", description: "Show the bytes" });
return { replacements: e.replacements, lines: r.lines.map((l) => l.text), bytes: bytes.stdout.trim() };
