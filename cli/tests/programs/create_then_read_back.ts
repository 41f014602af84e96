const content = [
  "# Release plan",
  "",
  "- [ ] bump version to 0.5.0",
  "- [ ] update CHANGELOG",
  "- [ ] publish",
].join("\n") + "\n";

const w = await tools.write({ file_path: "docs/release-plan.md", content });
const r = await tools.read({ file_path: "docs/release-plan.md" });

return {
  created: w.created,
  bytes: w.bytes,
  lines: w.lines,
  readBack: r.lines.map((l) => l.text),
  same: r.lines.map((l) => l.text).join("\n") + "\n" === content,
};
