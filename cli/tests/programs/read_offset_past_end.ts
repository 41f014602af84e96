// The model reads "the rest" of a file from a line it guessed, past the file's end.
const r = await tools.read({ file_path: "src/cart.ts", offset: 500 });
return { lines: r.lines.length, total: r.total_lines };
