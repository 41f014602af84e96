// The model renames a helper in a module that ends in a blank line, building the new text from
// read's lines; joined with "\n", the last (empty) line's blank line is lost. The seventeenth
// fresh pass found two files silently one line shorter.
await tools.write({ file_path: "src/helpers.py", content: "def make_sentinel():\n    return object()\n\n" });
const r = await tools.read({ file_path: "src/helpers.py" });
const text = r.lines.map((l) => l.text.replace("make_sentinel", "create_sentinel")).join("\n");
const w = await tools.write({ file_path: "src/helpers.py", content: text });
const after = await tools.read({ file_path: "src/helpers.py" });
return { lines_before: r.total_lines, lines_after: after.total_lines, hunks: w.hunks?.length };
