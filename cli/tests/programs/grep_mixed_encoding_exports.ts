// The model counts München and Paris rows across three exports, one of them cp1252 (the
// twelfth fresh pass: the cp1252 file's Paris rows matched, its München rows silently did not).
await tools.bash({
  command:
    "mkdir -p exports && printf '1;M\\xc3\\xbcnchen;5\\n2;Paris;7\\n' > exports/q1.csv && " +
    "printf '1;M\\xfcnchen;5\\n2;Paris;7\\n3;M\\xfcnchen;2\\n' > exports/q2.csv",
  description: "Make two exports",
});
const r = await tools.grep({ pattern: ";(München|Paris);", path: "exports" });
const perFile: Record<string, number> = {};
for (const m of r.matches) perFile[m.path] = (perFile[m.path] ?? 0) + 1;
return { total: r.total, perFile };
