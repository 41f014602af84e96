```ts
const a = 1;
const r = await tools.read({ file_path: "missing.md" });
return r;
```
