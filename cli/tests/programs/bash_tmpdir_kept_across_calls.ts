// Stage a report in $TMPDIR, then read it back in a later call.
await tools.bash({ command: 'ls src > "$TMPDIR/files.txt"', description: "List src into a temp file" });
const r = await tools.bash({ command: 'wc -l < "$TMPDIR/files.txt"', description: "Count the listed files" });
return `${r.stdout.trim()} files staged`;
