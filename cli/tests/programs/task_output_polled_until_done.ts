// Polls a background task until it ends: the reads while it ran are not a cut-short result.
const started = await tools.bash({
  command: "for i in 1 2 3; do echo step $i; sleep 0.1; done",
  description: "A short background loop",
  run_in_background: true,
});
let out = await tools.task_output({ task_id: started.task_id });
let text = out.output;
while (out.state === "running") {
  await new Promise((resolve) => setTimeout(resolve, 50));
  out = await tools.task_output({ task_id: started.task_id });
  text += out.output;
}
return { state: out.state, text };
