// Counts the errors in a log that has one stray NUL byte in the middle.
await tools.bash({
  command: "for i in $(seq 1 600); do if [ $i = 501 ]; then printf 'garbled \\000 line\\n'; fi; echo \"2026-12-02 ERROR request $i failed\"; done > events.txt",
  description: "Write a log with a stray NUL byte",
});
const named = await tools.grep({ pattern: "ERROR", path: "events.txt" });
const all = await tools.grep({ pattern: "ERROR", include: "*.txt" });
return { named: named.total, all: all.total };
