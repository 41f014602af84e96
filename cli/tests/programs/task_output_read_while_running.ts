// Reads a background task's output once, without waiting, while it still runs.
const started = await tools.bash({
  command: "sleep 30",
  description: "A long background job",
  run_in_background: true,
});
const out = await tools.task_output({ task_id: started.task_id });
await tools.task_kill({ task_id: started.task_id });
return { state: out.state, output: out.output };
