const wanted = ["README.md", "LICENSE", "tsconfig.json", "src/main.ts"];
const settled = await Promise.allSettled(wanted.map((f) => tools.read({ file_path: f, limit: 1 })));
return settled.map((s, i) =>
  s.status === "fulfilled"
    ? `${wanted[i]}: ${s.value.lines[0].text}`
    : `${wanted[i]}: MISSING (${s.reason instanceof ToolCallError ? s.reason.toolName : "?"})`,
);
