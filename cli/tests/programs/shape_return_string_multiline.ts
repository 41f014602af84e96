const cl = await tools.read({ file_path: "CHANGELOG.md" });
const versions = cl.lines.filter((l) => l.text.startsWith("## ")).map((l) => l.text.slice(3));
return `Latest: ${versions[0]}\nAll: ${versions.join(", ")}`;
