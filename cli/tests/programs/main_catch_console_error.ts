async function main(): Promise<void> {
  const r = await tools.read({ file_path: "docs/architecture.md" });
  const items = r.lines.filter((l) => /^\d+\./.test(l.text)).map((l) => l.text);
  console.log(items.join("\n"));
}

main().catch(console.error);
