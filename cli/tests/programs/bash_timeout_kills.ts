const r = await tools.bash({
  command: "echo begin; sleep 10; echo end",
  description: "Run a command that is too slow",
  timeoutMs: 2000,
});
return { exit_code: r.exit_code ?? null, signal: r.signal ?? null, stdout: r.stdout };
