const t = await tools.terminal_open({ type: "bash" });
const id = t.sessionId;
const job = await tools.terminal_send({ sessionId: id, text: "sleep 30; echo finished-sleep", run_in_background: true });
await tools.sleep({ ms: 1000 });
const sig = await tools.terminal_signal({ sessionId: id, signal: "SIGINT" });
const after = await tools.task_output({ task_id: job.task_id!, wait: true, timeout_ms: 5000 });
const echo = await tools.terminal_send({ sessionId: id, text: "echo still-alive" });
await tools.terminal_close({ sessionId: id });
return {
  signal: sig.signal,
  hitShell: sig.shell,
  jobDone: after.state,
  sleptThrough: after.output.split(/\r?\n/).some((l) => l.trim() === "finished-sleep"),
  aliveAfter: echo.output.includes("still-alive"),
};
