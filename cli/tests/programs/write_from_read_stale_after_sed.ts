// The model renames a function with sed, then adds a header to the text it had read before.
const path = "src/util/format.ts";
const before = await tools.read({ file_path: path });
await tools.bash({ command: `sed -i 's/formatPrice/formatCents/g' ${path}`, description: "Rename formatPrice" });
const header = "// Formatting helpers.\n";
try {
  await tools.write({ file_path: path, content: header + before.lines.map((l) => l.text).join("\n") + "\n" });
} catch (e) {
  console.log((e as Error).message);
  const again = await tools.read({ file_path: path });
  await tools.write({ file_path: path, content: header + again.lines.map((l) => l.text).join("\n") + "\n" });
}
const after = await tools.read({ file_path: path });
return after.lines.slice(0, 3).map((l) => l.text);
