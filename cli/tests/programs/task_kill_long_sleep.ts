const bg = await tools.bash({
  command: "echo started; sleep 30; echo never",
  description: "Start a long sleep",
  run_in_background: true,
});
const id = bg.task_id!;
const first = await tools.task_output({ task_id: id, wait: true, timeout_ms: 2000 });
const killed = await tools.task_kill({ task_id: id, reason: "not needed" });
const after = await tools.task_output({ task_id: id, wait: true, timeout_ms: 5000 });
return {
  firstState: first.state,
  firstOutput: first.output,
  killed: killed.killed,
  finalState: after.state,
  finalSignal: after.signal ?? null,
  neverPrinted: !after.output.includes("never"),
};
