const r = await tools.bash({
  command: "echo out1; echo err1 >&2; echo out2; echo err2 >&2",
  description: "Write to stdout and stderr",
});
return { stdout: r.stdout, stderr: r.stderr, outputLines: r.output.split("\n").filter(Boolean).sort() };
