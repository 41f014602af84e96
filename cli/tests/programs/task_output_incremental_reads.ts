const { task_id } = await tools.bash({
  command: "echo one; sleep 0.5; echo two; sleep 0.5; echo three",
  description: "Emit three lines slowly",
  run_in_background: true,
});
const chunks: string[] = [];
for (let i = 0; i < 20; i++) {
  const o = await tools.task_output({ task_id: task_id!, wait: true, timeout_ms: 5000 });
  chunks.push(o.output);
  if (o.state !== "running") {
    return { state: o.state, status: o.status, all: chunks.join(""), dropped: o.dropped_bytes };
  }
}
return "still running";
