// The model reaches for the shell's name of a tool (the twelfth fresh pass was pointed from
// `ls` to `lsp`, a few letters away, rather than to `glob`).
const files = await tools.ls({ path: "." });
return files;
