async function ensureTests() {
  const r = await tools.glob({ pattern: "tests/**/*.spec.ts" });
  if (r.total === 0) throw new Error("no *.spec.ts tests found");
}

ensureTests();
await tools.sleep({ ms: 1000 });
return "tests present";
