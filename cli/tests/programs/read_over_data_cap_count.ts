// How many lines does the big export have, and what is the last record?
await tools.bash({
  command: "for i in $(seq 1 9000); do printf 'row %05d %01010d\\n' $i 0; done > export.csv",
  description: "Write a 9 MB export",
});
const file = await tools.read({ file_path: "export.csv" });
return { read: file.lines.length, total: file.total_lines, last: file.lines.at(-1)!.text.slice(0, 9) };
