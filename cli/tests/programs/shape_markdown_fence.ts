```ts
const readme = await tools.read({ file_path: "README.md" });
const headings = readme.lines
  .filter((l) => l.text.startsWith("#"))
  .map((l) => `${l.number}: ${l.text}`);
return headings;
```
