const r = await tools.glob({ pattern: "LICENSE*" });
const results = [r.total === 0, r.paths[0] ?? null, ""];
console.log(JSON.stringify(results));
return r.total === 0;
