type Status = "pending" | "in_progress" | "completed";
const steps = ["Find TODO comments", "Group them by file", "Write docs/todos.md"];
const plan = (done: number) =>
  steps.map((content, i) => ({
    content,
    status: (i < done ? "completed" : i === done ? "in_progress" : "pending") as Status,
  }));

await tools.todo_write({ todos: plan(0) });
const hits = await tools.grep({ pattern: "TODO", path: "src" });
await tools.todo_write({ todos: plan(1) });
const files = [...new Set(hits.matches.map((h) => h.path))];
await tools.todo_write({ todos: plan(2) });
await tools.write({
  file_path: "docs/todos.md",
  content: files.map((f) => `- ${f}`).join("\n") + "\n",
});
const final = await tools.todo_write({ todos: plan(3) });
return { pending: final.pending, in_progress: final.in_progress, completed: final.completed, files };
