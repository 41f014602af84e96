const t = await tools.terminal_open({ type: "bash" });
try {
  await tools.terminal_signal({ sessionId: t.sessionId, signal: "SIGUSR1" as any });
  return "sent";
} finally {
  await tools.terminal_close({ sessionId: t.sessionId });
}
