const patterns = { todo: "TODO", fixme: "FIXME", exports: "^export ", imports: "^import ", tests: "\\bit\\(" };
const entries = await Promise.all(
  Object.entries(patterns).map(async ([name, pattern]) => {
    const r = await tools.grep({ pattern });
    return [name, { total: r.total, files: r.files }] as const;
  }),
);
return Object.fromEntries(entries);
