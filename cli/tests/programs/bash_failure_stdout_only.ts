// The model reads only stdout of a command that fails, and reports an empty answer.
const r = await tools.bash({
  command: "cat src/missing.ts | wc -l && ls src/nope",
  description: "Count lines of a missing file",
});
return `lines: ${r.stdout.trim() || "none"}`;
