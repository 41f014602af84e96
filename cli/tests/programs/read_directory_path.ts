const r = await tools.read({ file_path: "src/util" });
return r.lines;
