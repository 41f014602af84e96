// The model sorts the lines of a file and writes them back joined with "\n", without a final
// newline, over a file that had one.
await tools.bash({ description: "Make a word list", command: "printf 'pear\\napple\\nfig\\n' > words.txt" });
const r = await tools.read({ file_path: "words.txt" });
const sorted = r.lines.map((l) => l.text).sort();
await tools.write({ file_path: "words.txt", content: sorted.join("\n") });
const check = await tools.bash({ description: "Show the bytes", command: "od -c words.txt | head -n 2" });
return check.stdout;
