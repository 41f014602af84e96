const t = await tools.terminal_open({ type: "python", cwd: "data" });
const id = t.sessionId;
try {
  await tools.terminal_send({ sessionId: id, text: "import csv" });
  await tools.terminal_send({ sessionId: id, text: "rows = list(csv.DictReader(open('products.csv')))" });
  const r = await tools.terminal_send({
    sessionId: id,
    text: "print('CATS', sorted({r['category'] for r in rows}))",
  });
  return r.output.split(/\r?\n/).find((l) => l.startsWith("CATS")) ?? r.output;
} finally {
  await tools.terminal_close({ sessionId: id });
}
