const t = await tools.terminal_open({ type: "bash", cwd: "data" });
const sent = await tools.terminal_send({
  sessionId: t.sessionId,
  text: "sleep 0.5; wc -l < products.csv",
  run_in_background: true,
});
const done = await tools.task_output({ task_id: sent.task_id!, wait: true, timeout_ms: 10000 });
await tools.terminal_close({ sessionId: t.sessionId });
return {
  openCwd: t.cwd,
  sendUntil: sent.until,
  taskKind: done.kind,
  taskState: done.state,
  sawCount: /\b8\b/.test(done.output),
};
