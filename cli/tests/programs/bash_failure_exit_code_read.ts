// The model checks the exit code of a command that may fail: nothing to add.
const r = await tools.bash({ command: "ls src/nope", description: "List a missing folder" });
if (r.exit_code !== 0) return `ls failed (${r.exit_code})`;
return r.stdout;
