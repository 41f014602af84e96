const r = await tools.Read({ file_path: "README.md" });
return r.total_lines;
