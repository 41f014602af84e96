const t = await tools.terminal_open({ type: "node", name: "js" });
const s = t.sessionId;
await tools.terminal_send({ sessionId: s, text: "const xs = [3, 1, 2].sort()" });
const r = await tools.terminal_send({ sessionId: s, text: "JSON.stringify({ xs, n: xs.length })" });
await tools.terminal_close({ sessionId: s });
return { opened: t.type, state: t.state, answer: r.output.match(/\{.*\}/)?.[0] ?? r.output };
