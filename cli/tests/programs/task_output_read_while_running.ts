// Reads a background task's output once, without waiting, while it still runs.
const started = await tools.bash({
  command: "echo begun; sleep 30; echo finished",
  description: "A long background job",
  run_in_background: true,
});
let out = await tools.task_output({ task_id: started.task_id });
while (!out.output.includes("begun")) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  out = await tools.task_output({ task_id: started.task_id });
}
await tools.task_kill({ task_id: started.task_id });
return { state: out.state, output: out.output };
