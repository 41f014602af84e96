const { matches } = await tools.grep({ pattern: "TODO|FIXME", path: "src" });
const perFile = new Map<string, number>();
for (const m of matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1);
return perFile;
