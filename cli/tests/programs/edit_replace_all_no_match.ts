const r = await tools.edit({
  file_path: "src/inventory.ts",
  old_string: "this.stockLevels",
  new_string: "this.levels",
  replace_all: true,
});
return r.replacements;
