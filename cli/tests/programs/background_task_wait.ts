const started = await tools.bash({
  command: "for i in 1 2 3; do echo step $i; sleep 0.2; done; echo finished",
  description: "Run a short background loop",
  run_in_background: true,
});
if (!started.task_id) throw new Error("no task id");
const out = await tools.task_output({ task_id: started.task_id, wait: true, timeout_ms: 10000 });
return {
  kind: out.kind,
  state: out.state,
  status: out.status,
  exit_code: out.exit_code,
  output: out.output,
};
