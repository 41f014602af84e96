const sum = await tools.add({ a: 19, b: 23 });
const echoed = await tools.echo({ text: "héllo, wörld ✓" });
const c1 = await tools.counter({});
const c2 = await tools.counter({});
const slept = await tools.sleep({ ms: 10 });
return { sum, echoed, counterStep: c2 - c1, slept };
