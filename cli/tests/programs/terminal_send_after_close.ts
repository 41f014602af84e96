const t = await tools.terminal_open({ type: "sh" });
await tools.terminal_close({ sessionId: t.sessionId });
try {
  await tools.terminal_send({ sessionId: t.sessionId, text: "echo hi" });
  return "sent";
} catch (e) {
  const msg = (e as Error).message.replaceAll(t.sessionId, "<id>");
  const list = await tools.terminal_list({});
  return { tool: (e as ToolCallError).toolName, msg, listed: list.terminals.map((x) => x.state) };
}
