const r = await tools.glob({ pattern: "*.json", path: "../" });
return r.paths;
