// Prefix every line of the 2,051-line log with its line number, in place.
await tools.bash({ command: "seq -f 'entry %g' 1 2051 > app.log", description: "Write a long log" });
const log = await tools.read({ file_path: "app.log" });
const content = log.lines.map((l) => `${l.number}: ${l.text}`).join("\n") + "\n";
await tools.write({ file_path: "app.log", content });
const check = await tools.bash({ command: "wc -l < app.log; tail -n 1 app.log", description: "Check the log" });
return check.stdout;
