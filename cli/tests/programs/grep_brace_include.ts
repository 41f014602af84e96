const r = await tools.grep({ pattern: "inventory", include: "*.{md,ts}" });
const byFile: Record<string, number[]> = {};
for (const m of r.matches) (byFile[m.path] ??= []).push(m.line);
return { files: r.files, total: r.total, byFile };
