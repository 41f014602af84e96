try {
  await tools.task_output({ task_id: "task-does-not-exist" });
} catch (e) {
  console.log("caught:", (e as ToolCallError).toolName);
  console.log((e as Error).message);
}
const { tasks } = await tools.task_list({});
return tasks.length;
