async () => {
  const t = await tools.terminal_open({ type: "bash" });
  const id = t.sessionId;
  await tools.terminal_send({ sessionId: id, text: "cd src/util" });
  await tools.terminal_send({ sessionId: id, text: "export GREETING=hello" });
  const r = await tools.terminal_send({ sessionId: id, text: 'echo "$GREETING from $(basename $PWD)"' });
  const list = await tools.terminal_list({});
  await tools.terminal_close({ sessionId: id });
  return {
    sawLine: r.output.includes("hello from util"),
    until: r.until,
    openTerminals: list.terminals.map((x) => ({ type: x.type, cwd: x.cwd, state: x.state })),
  };
}
