const { paths } = await tools.glob({ pattern: "**/*.json" });
for (const p of paths) {
  const r = await tools.read({ file_path: p });
  console.log(`${p}: ${r.total_lines} lines`);
}
console.log("objects are printed Node-style:", { files: paths.length, nested: { ok: true } });
