// The model bumps two counters of one config file in parallel: both entries of the list name the
// same file, and each task reads it, changes its line and writes it back.
await tools.bash({ description: "Make the counters", command: "printf 'a=1\\nb=1\\n' > counters.ini" });
const bumps = [{ file: "counters.ini", key: "a" }, { file: "counters.ini", key: "b" }];
await Promise.all(
  bumps.map(async ({ file, key }) => {
    const r = await tools.read({ file_path: file });
    const lines = r.lines.map((l) => (l.text.startsWith(`${key}=`) ? `${key}=${Number(l.text.split("=")[1]) + 1}` : l.text));
    await tools.write({ file_path: file, content: lines.join("\n") + "\n" });
  }),
);
const check = await tools.bash({ description: "Show the counters", command: "cat counters.ini" });
return check.stdout;
