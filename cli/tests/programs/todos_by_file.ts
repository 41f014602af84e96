const res = await tools.grep({ pattern: "TODO|FIXME", path: "src" });
const byFile: Record<string, string[]> = {};
for (const m of res.matches) {
  (byFile[m.path] ??= []).push(`${m.line}: ${m.text.trim()}`);
}
return byFile;
