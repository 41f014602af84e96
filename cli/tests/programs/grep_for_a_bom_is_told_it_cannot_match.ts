// The model looks for the files that start with a UTF-8 byte order mark with grep.
await tools.bash({ description: "Make a JSON file with a BOM", command: "printf '\\xef\\xbb\\xbf{\"a\": 1}\\n' > bom.json" });
const r = await tools.grep({ pattern: "^\\x{FEFF}", include: "*.json" });
return { files: [...new Set(r.matches.map((m) => m.path))] };
