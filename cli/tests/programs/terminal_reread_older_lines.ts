const t = await tools.terminal_open({ type: "bash", name: "scratch" });
const id = t.sessionId;
await tools.terminal_send({ sessionId: id, text: "for i in 1 2 3 4 5; do echo line-$i; done" });
const nothingNew = await tools.terminal_read({ sessionId: id });
const older = await tools.terminal_read({ sessionId: id, offset: 1, count: 50 });
await tools.terminal_close({ sessionId: id });
const found = older.output.split(/\r?\n/).filter((l) => /^line-\d$/.test(l.trim()));
return { newLines: nothingNew.lines, rereadFound: found.map((l) => l.trim()) };
