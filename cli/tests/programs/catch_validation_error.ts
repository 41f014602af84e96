// Validation failures are ToolCallErrors too, so the model can recover in-program.
const attempts = [
  () => tools.read({ file_path: "README.md", limit: -1 as number, offset: "2" as unknown as number }),
  () => tools.read({ file_path: "README.md", offset: 2, limit: 2 }),
];
const log: string[] = [];
for (const attempt of attempts) {
  try {
    const r = await attempt();
    log.push("ok: " + r.lines.map((l) => l.text).join(" | "));
    break;
  } catch (e) {
    log.push(`${(e as ToolCallError).toolName} rejected: ${(e as Error).message}`);
  }
}
return log;
