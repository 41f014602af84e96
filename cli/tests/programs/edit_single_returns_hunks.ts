const r = await tools.edit({
  file_path: "src/cart.ts",
  old_string: "    // TODO: reject negative quantities\n",
  new_string: '    if (quantity <= 0) throw new RangeError("quantity must be positive");\n',
});
return { path: r.path, replacements: r.replacements, hunks: r.hunks };
