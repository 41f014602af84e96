// The model checks a command's exit code; the command is killed by a signal, so there is none.
const r = await tools.bash({ command: "sh -c 'echo checking; kill -KILL $$'", description: "Run the self check" });
if (r.exit_code! > 0) return `FAILED (${r.exit_code}): ${r.stderr}`;
return `passed: ${r.stdout.trim()}`;
