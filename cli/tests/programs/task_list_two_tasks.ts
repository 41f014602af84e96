const a = await tools.bash({ command: "echo alpha", description: "Print alpha", run_in_background: true });
const b = await tools.bash({ command: "echo beta; exit 2", description: "Print beta then fail", run_in_background: true });
await Promise.all([
  tools.task_output({ task_id: a.task_id!, wait: true }),
  tools.task_output({ task_id: b.task_id!, wait: true }),
]);
const { tasks } = await tools.task_list({});
return tasks.map((t) => ({
  mine: t.task_id === a.task_id ? "a" : t.task_id === b.task_id ? "b" : "?",
  kind: t.kind,
  state: t.state,
  status: t.status,
  exit_code: t.exit_code,
  description: t.description,
  unread_bytes: t.unread_bytes,
}));
