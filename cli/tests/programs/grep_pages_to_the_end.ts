// The model makes 25,000 log lines, then counts ERROR lines across grep's pages.
await tools.bash({ description: "Make a large log", command: "mkdir -p logs && for i in $(seq 1 25000); do echo \"$i ERROR disk full\"; done > logs/big.txt" });
let offset = 0;
let errors = 0;
for (;;) {
  const page = await tools.grep({ pattern: "ERROR", path: "logs", offset });
  errors += page.matches.length;
  if (!page.truncated) break;
  offset += page.matches.length;
}
return { errors };
