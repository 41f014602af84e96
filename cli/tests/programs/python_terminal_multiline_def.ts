const { sessionId } = await tools.terminal_open({ type: "python" });
const send = (text: string) => tools.terminal_send({ sessionId, text });
await send("def cents(s):");
await send("    return round(float(s.strip('$')) * 100)");
await send("");
const r = await send("print([cents(x) for x in ['$12.50', '$1.05', '$0.10']])");
await tools.terminal_close({ sessionId });
return r.output.match(/\[[\d, ]+\]/)?.[0] ?? r.output;
