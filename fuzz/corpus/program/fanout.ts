// Fan out independent read-only calls with Promise.all, then combine the results.
const words: string[] = ["alpha", "beta", "gamma", "delta"];
const echoed = await Promise.all(words.map((text) => tools.echo({ text })));
const lengths = await Promise.all(echoed.map((w) => tools.add({ a: w.length, b: 0 })));
const total = lengths.reduce((sum, n) => sum + n, 0);
console.log(`echoed ${echoed.length} words`);
return { words: echoed, total };
