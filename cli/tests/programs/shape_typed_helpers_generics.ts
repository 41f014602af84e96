type Tool = keyof typeof tools;

async function timed<T>(label: string, p: Promise<T>): Promise<{ label: string; value: T }> {
  const value = await p;
  return { label, value };
}

const results = await Promise.all([
  timed("sum", tools.add({ a: 2, b: 3 })),
  timed("echo", tools.echo({ text: "ok" })),
]);
const names: Tool[] = ["add", "echo"];
const x = ["a", "b"] as const;
const y = results as unknown as Array<{ label: string }>;
return { names, labels: y.map((r) => r.label), values: results.map((r) => r.value), x };
