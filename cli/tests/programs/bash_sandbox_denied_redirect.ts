// The model counts TODOs into a file outside the workspace, then prints the file.
const r = await tools.bash({
  command: "grep -c TODO src/cart.ts > /var/todo_count.txt && cat /var/todo_count.txt",
  description: "Count the TODOs in cart.ts",
});
return { todos: Number(r.stdout.trim() || 0), exit: r.exit_code };
