// counter is process-wide: compare values relative to the first one.
const base = await tools.counter({});
const values = await Promise.all(Array.from({ length: 5 }, () => tools.counter({})));
return values.map((v) => v - base).sort((a, b) => a - b);
