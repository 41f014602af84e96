// Searches a file written in Latin-1: the matching line is not UTF-8.
await tools.bash({ command: "printf 'caf\\351 menu\\nplain menu\\n' > menu.txt", description: "Write a Latin-1 file" });
const found = await tools.grep({ pattern: "menu", path: "menu.txt" });
return found.matches.map((m) => `${m.line}: ${m.text}`);
