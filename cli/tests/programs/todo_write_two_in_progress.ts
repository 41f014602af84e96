const r = await tools.todo_write({
  todos: [
    { content: "Fix parsePrice rounding", status: "in_progress" },
    { content: "Use Intl.NumberFormat", status: "in_progress" },
  ],
});
return { in_progress: r.in_progress };
