// The model fixes a TODO with edit, then prepends a header to the text it read before the edit.
const path = "src/cart.ts";
const r = await tools.read({ file_path: path });
await tools.edit({
  file_path: path,
  old_string: "    // TODO: reject negative quantities\n",
  new_string: "    if (quantity < 0) throw new Error(\"negative quantity\");\n",
});
const header = "// Copyright 2026 Shop Inc.\n";
await tools.write({ file_path: path, content: header + r.lines.map((l) => l.text).join("\n") + "\n" });
return "added the header";
