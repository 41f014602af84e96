const r = await tools.glob({ pattern: "src/**/*.ts" });
if (r.total < 10) throw `only ${r.total} source files, expected at least 10`;
return r.paths;
