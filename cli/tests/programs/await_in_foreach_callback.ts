const { paths } = await tools.glob({ pattern: "src/*.ts" });
const sizes: Record<string, number> = {};
paths.forEach((p) => {
  const r = await tools.read({ file_path: p });
  sizes[p] = r.total_lines;
});
return sizes;
