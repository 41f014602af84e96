// The model prints the whole result of a command that fails: the model sees the exit code in
// the printed object, so there is nothing to add (and the object prints as plain data).
const r = await tools.bash({ command: "ls src/nope", description: "List a missing folder" });
console.log(r);
return "listed";
