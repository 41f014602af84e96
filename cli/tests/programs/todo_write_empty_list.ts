await tools.todo_write({ todos: [{ content: "Check README", status: "in_progress" }] });
const cleared = await tools.todo_write({ todos: [] });
return cleared;
