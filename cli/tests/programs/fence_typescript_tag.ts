```typescript
const r = await tools.glob({ pattern: "tests/**/*.test.ts" });
return r.paths;
```
