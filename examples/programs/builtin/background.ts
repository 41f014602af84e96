// Start a slow command in the background, do other work meanwhile, then poll the task with
// `task_output` (waiting up to 10 s per poll) until it has ended, and return what it printed.
const started = await tools.bash({
  command: 'for i in 1 2 3; do echo "step $i"; sleep 0.2; done; echo done',
  description: "Run a slow three-step job",
  run_in_background: true,
});
const id = started.task_id!;
// Meanwhile: other work, while the job runs.
const files = await tools.glob({ pattern: "**/*" });
console.log(`started ${id}; the workspace has ${files.total} files`);
let output = "";
let state = "running";
let status = "";
while (state === "running") {
  const poll = await tools.task_output({ task_id: id, wait: true, timeout_ms: 10000 });
  output += poll.output; // only what arrived since the previous poll
  state = poll.state;
  status = poll.status;
}
return { lines: output.trim().split("\n"), status };
