// The model writes the pattern as a JavaScript regex literal in a string.
const r = await tools.grep({ pattern: "/export default/", path: "src" });
return r.total === 0 ? "no default exports" : r.matches.map((m) => m.path);
