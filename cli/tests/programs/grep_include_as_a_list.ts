// The model searches TypeScript and JSON files at once, passing include as a comma list.
const r = await tools.grep({ pattern: "version", include: "*.ts,*.json" });
return r.matches.map((m) => m.path);
