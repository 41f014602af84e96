const r = await tools.read({ file_path: "README.md" });
const title = r.content.split("\n")[0];
return title.replace(/^#\s*/, "");
