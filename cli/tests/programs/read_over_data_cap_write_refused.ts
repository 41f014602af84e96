// Redact the e-mail addresses in a big log file, in place.
await tools.bash({
  command: "for i in $(seq 1 9000); do printf '%05d user%d@example.com %01000d\\n' $i $i 0; done > big.log",
  description: "Write a 9 MB log",
});
const log = await tools.read({ file_path: "big.log" });
const redacted = log.lines.map((l) => l.text.replace(/\S+@example\.com/, "<redacted>")).join("\n") + "\n";
await tools.write({ file_path: "big.log", content: redacted });
return `redacted ${log.lines.length} lines`;
