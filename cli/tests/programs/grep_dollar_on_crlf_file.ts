// The model counts the statements of a Windows-style (CRLF) script that end in a semicolon,
// anchoring the pattern with `$` as it would on any file.
await tools.bash({ description: "Make a CRLF script", command: "printf 'let a = 1;\\r\\nlet b = 2\\r\\nlet c = 3;\\r\\n' > legacy.js" });
const { matches, total } = await tools.grep({ pattern: ";$", path: "legacy.js" });
return { total, lines: matches.map((m) => `${m.line}: ${JSON.stringify(m.text)}`) };
