// The model guesses the readme's usual spelling; the workspace spells it differently.
await tools.bash({ command: "mv README.md Readme.md", description: "Rename the readme" });
const r = await tools.read({ file_path: "README.md" });
return r.lines.slice(0, 3).map((l) => l.text).join("\n");
