// Count lines in every TypeScript source file, biggest first.
const { paths } = await tools.glob({ pattern: "src/**/*.ts" });
const reads = await Promise.all(paths.map((p) => tools.read({ file_path: p })));
const counts = reads
  .map((r) => ({ file: r.path, lines: r.total_lines }))
  .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
const total = counts.reduce((n, c) => n + c.lines, 0);
return { counts, total };
