// Multi-step: implement the "grand total row" TODO in src/report.ts, then check it.
const file = "src/report.ts";
const todo = await tools.grep({ pattern: "TODO: add a grand total row", path: file });
if (todo.total !== 1) return "TODO not found";

const edited = await tools.edit({
  file_path: file,
  old_string: `  // TODO: add a grand total row
  return ["sku\\tqty\\ttotal", ...rows].join("\\n");`,
  new_string: `  const grand = lines.reduce((s, l) => s + l.product.priceCents * l.quantity, 0);
  return ["sku\\tqty\\ttotal", ...rows, \`TOTAL\\t\\t\${formatPrice(grand)}\`].join("\\n");`,
});

const check = await tools.read({ file_path: file, offset: edited.hunks[0].line });
const remaining = await tools.grep({ pattern: "TODO", path: "src" });
return {
  replacements: edited.replacements,
  tail: check.lines.map((l) => l.text),
  todosLeft: remaining.total,
};
