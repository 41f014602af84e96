for await (const r of [tools.add({ a: 1, b: 1 }), tools.add({ a: 2, b: 2 })]) {
  console.log(r);
}
label: for (const x of [1, 2, 3]) {
  for (const y of [1, 2]) {
    if (x * y === 4) break label;
    console.log(x, y);
  }
}
const { a = 5, ...rest } = { b: 2, c: 3 } as { a?: number; b: number; c: number };
return { a, rest, opt: (rest as any)?.d?.e ?? "none", exp: 2 ** 10, big: Number.MAX_SAFE_INTEGER };
