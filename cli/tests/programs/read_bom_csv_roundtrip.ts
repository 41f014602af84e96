// The model reads a CSV exported with a UTF-8 byte order mark, finds a column by its header
// name, upper-cases it and writes the file back.
await tools.bash({ description: "Make a CSV with a BOM", command: "printf '\\xef\\xbb\\xbfid,name\\n1,ada\\n2,bob\\n' > people.csv" });
const r = await tools.read({ file_path: "people.csv" });
const rows = r.lines.map((l) => l.text.split(","));
const col = rows[0].indexOf("id");
const out = rows.map((row, i) => (i === 0 ? row : row.map((v, j) => (j === col ? v : v.toUpperCase()))).join(","));
await tools.write({ file_path: "people.csv", content: out.join("\n") + "\n" });
const check = await tools.bash({ description: "Count BOMs, show the file", command: "grep -c $'\\xef\\xbb\\xbf' people.csv; cat people.csv | tail -n 2" });
return { idColumn: col, check: check.stdout };
