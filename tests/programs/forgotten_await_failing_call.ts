// The model forgets `await` on a call that fails.
tools.edit({ file_path: "src/cart.ts", old_string: "quantity = 2", new_string: "quantity = 3" });
const r = await tools.read({ file_path: "src/cart.ts", offset: 17, limit: 1 });
return r.lines[0].text.trim();
