const r = await tools.todo_write({
  todos: [
    { id: "1", content: "Add grand total row to salesReport", status: "in_progress", priority: "high" },
    { id: "2", content: "Reject negative quantities in Cart.add", status: "pending", priority: "medium" },
    { id: "3", content: "Persist inventory", status: "pending", tags: ["later", "design"] },
  ],
});
return r;
