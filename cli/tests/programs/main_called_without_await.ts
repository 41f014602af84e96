async function main() {
  const r = await tools.glob({ pattern: "tests/*.ts" });
  return r.paths.length;
}

main();
