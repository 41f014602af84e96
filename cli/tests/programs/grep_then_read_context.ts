// Show each FIXME with two lines of context on each side.
const hits = await tools.grep({ pattern: "FIXME" });
const blocks: string[] = [];
for (const hit of hits.matches) {
  const start = Math.max(1, hit.line - 2);
  const win = await tools.read({ file_path: hit.path, offset: start, limit: 5 });
  blocks.push(
    `== ${hit.path}:${hit.line}\n` +
      win.lines.map((l) => `${l.number === hit.line ? ">" : " "} ${l.number} ${l.text}`).join("\n"),
  );
}
return blocks.join("\n\n");
