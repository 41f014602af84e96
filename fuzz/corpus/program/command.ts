// Run a command and parse its output: count the lines of every text file in the
// workspace with `wc -l`, then total them by file extension, largest first.
const run = await tools.bash({
  command: "find . -type f -not -path './.git/*' -print0 | xargs -0 -r wc -l",
  description: "Count lines of every file",
});
if (run.exit_code !== 0) {
  throw new Error(`wc failed (exit ${run.exit_code ?? run.signal}): ${run.stderr.trim()}`);
}
const byExt: Record<string, { files: number; lines: number }> = {};
for (const row of run.stdout.split("\n")) {
  const m = row.match(/^\s*(\d+)\s+(.+)$/);
  if (!m || m[2] === "total") continue; // xargs may print one "total" per batch
  const name = m[2].split("/").pop() ?? m[2];
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? name.slice(dot) : "(none)";
  const entry = (byExt[ext] ??= { files: 0, lines: 0 });
  entry.files++;
  entry.lines += Number(m[1]);
}
const table = Object.entries(byExt)
  .map(([ext, v]) => ({ ext, ...v }))
  .sort((a, b) => b.lines - a.lines || a.ext.localeCompare(b.ext));
for (const r of table) console.log(`${r.ext.padEnd(10)} ${String(r.files).padStart(5)} files ${String(r.lines).padStart(8)} lines`);
return { extensions: table.length, files: table.reduce((n, r) => n + r.files, 0), truncated: run.truncated };
