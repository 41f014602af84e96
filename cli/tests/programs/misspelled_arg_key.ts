const r = await tools.read({ path: "README.md", limit: 3 });
return r.lines.map((l) => l.text);
