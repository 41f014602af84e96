// How many functions does src/ export, and where?
const r = await tools.grep({ pattern: "^export function\s+\w+", path: "src" });
console.log(`${r.total} exported functions`);
return r.matches.map((m) => `${m.path}:${m.line}`);
