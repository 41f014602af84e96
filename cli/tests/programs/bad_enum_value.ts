await tools.todo_write({
  todos: [
    { content: "Read the README", status: "done" },
    { content: "Fix the FIXMEs", status: "in_progress" },
  ],
});
return "plan saved";
