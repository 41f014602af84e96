const r = tools.read({ file_path: "README.md" });
return r.lines.length;
