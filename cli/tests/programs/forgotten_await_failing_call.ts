// The model forgets `await` on a call that fails, and guesses the argument names.
tools.edit({ file_path: "src/cart.ts", old: "quantity = 2", new: "quantity = 3" });
const r = await tools.read({ file_path: "src/cart.ts", offset: 17, limit: 1 });
return r.lines[0].text.trim();
