// The model fires two edits without awaiting them (the second one's old_string is wrong), reads
// another file, and reports both edits as done.
tools.edit({ file_path: "src/cart.ts", old_string: "quantity = 1", new_string: "quantity = 2" });
tools.edit({ file_path: "src/inventory.ts", old_string: "no such text", new_string: "x" });
const r = await tools.read({ file_path: "package.json" });
return `updated cart and inventory (package.json has ${r.total_lines} lines)`;
