// Sum the numbers in a long data file, one per line.
await tools.bash({ command: "seq 1 3000 > numbers.txt", description: "Write 3000 numbers" });
const file = await tools.read({ file_path: "numbers.txt" });
const sum = file.lines.reduce((acc, l) => acc + Number(l.text), 0);
return `${file.lines.length} of ${file.total_lines} lines read, sum ${sum}`;
