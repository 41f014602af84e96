const term = await tools.terminal_open({ type: "python", name: "calc" });
await tools.terminal_send({ sessionId: term.sessionId, text: "prices = [1250, 3499, 499]" });
await tools.terminal_send({ sessionId: term.sessionId, text: "total = sum(prices)" });
const res = await tools.terminal_send({ sessionId: term.sessionId, text: "print('TOTAL', total)" });
const closed = await tools.terminal_close({ sessionId: term.sessionId });
const m = res.output.match(/TOTAL (\d+)/);
return { type: term.type, name: term.name, total: m ? Number(m[1]) : null, gone: closed.gone };
