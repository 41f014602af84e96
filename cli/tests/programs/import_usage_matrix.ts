// Which files import which local modules?
const imports = await tools.grep({ pattern: "^import .* from \"\\.\\.?/", include: "*.ts" });
const matrix: Record<string, string[]> = {};
for (const m of imports.matches) {
  const target = m.text.match(/from "([^"]+)"/)?.[1];
  if (target) (matrix[m.path] ??= []).push(target);
}
return Object.entries(matrix)
  .map(([file, targets]) => `${file} -> ${targets.join(", ")}`)
  .join("\n");
