const files = ["README.md", "CHANGELOG.md", "docs/architecture.md", "scripts/stock_report.py"];
const results = await Promise.all(
  files.map((f) => tools.read({ file_path: f, limit: 1 }))
);
const out: Record<string, string> = {};
results.forEach((r, i) => {
  out[files[i]] = r.lines[0]?.text ?? "";
});
out.allTruncated = String(results.every((r) => r.truncated));
return out;
