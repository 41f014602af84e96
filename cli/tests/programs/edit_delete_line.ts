const before = await tools.grep({ pattern: "FIXME", path: "src/cart.ts" });
const line = before.matches[0];
const r = await tools.edit({ file_path: "src/cart.ts", old_string: line.text + "\n", new_string: "" });
const after = await tools.read({ file_path: "src/cart.ts", offset: line.line - 1, limit: 3 });
console.log(`removed line ${line.line}: ${line.text.trim()}`);
return after.lines.map((l) => `${l.number}|${l.text}`);
