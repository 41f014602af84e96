// The model turns a cp1252 CSV printed by bash into JSON records (the twelfth fresh pass wrote
// U+FFFD for every accented letter into a new file, with no word of it).
await tools.bash({
  command: "printf 'name;city\\n\\xc5sa;M\\xfcnchen\\nBo;Paris\\n' > people.csv",
  description: "Make a cp1252 CSV",
});
const r = await tools.bash({ command: "cat people.csv", description: "Print the CSV" });
const [head, ...rows] = r.stdout.trim().split("\n");
const keys = head.split(";");
const records = rows.map((row) => Object.fromEntries(row.split(";").map((v, i) => [keys[i], v])));
return records;
