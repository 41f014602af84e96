// The model guesses a tool name that is not declared.
const hits = await tools.search_files({ pattern: "TODO" });
return hits;
