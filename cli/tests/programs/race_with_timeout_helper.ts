function withTimeout<T>(p: Promise<T>, ms: number, label: string): Promise<T | string> {
  return Promise.race([p, new Promise<string>((r) => setTimeout(() => r(`${label}: timed out`), ms))]);
}
const fast = await withTimeout(tools.echo({ text: "fast answer" }), 2000, "echo");
const slow = await withTimeout(tools.sleep({ ms: 1500 }), 100, "sleep");
return { fast, slow };
