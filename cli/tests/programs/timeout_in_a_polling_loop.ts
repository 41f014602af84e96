// ptc-limits: timeout_ms=1500
// The model waits for a build output that never appears, polling with a long pause.
let tries = 0;
while (true) {
  const { total } = await tools.glob({ pattern: "dist/**/*.js" });
  if (total > 0) break;
  tries++;
  await tools.sleep({ ms: 60000 });
}
return `built after ${tries} tries`;
