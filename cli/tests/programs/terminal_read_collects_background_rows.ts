// The model runs a loop in a terminal in the background and collects its rows with
// terminal_read (the twelfth fresh pass got the newest 500 of 2,000, the rest marked read).
const t = await tools.terminal_open({ type: "shell" });
const { task_id } = await tools.terminal_send({
  sessionId: t.sessionId,
  text: "for i in $(seq 1 2000); do echo row $i; done; echo FINISHED",
  run_in_background: true,
});
await tools.task_output({ task_id, wait: true });
const r = await tools.terminal_read({ sessionId: t.sessionId });
await tools.terminal_close({ sessionId: t.sessionId });
return r.output.split("\n").filter((l) => /^row \d+\r?$/.test(l)).length;
