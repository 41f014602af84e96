export default async function () {
  const g = await tools.glob({ pattern: "tests/**/*.test.ts" });
  const counts = await Promise.all(
    g.paths.map(async (p) => {
      const r = await tools.grep({ pattern: "\\bit\\(", path: p });
      return [p, r.total] as const;
    }),
  );
  return Object.fromEntries(counts.sort());
}
