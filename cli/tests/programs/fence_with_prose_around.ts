Here is a program that lists the test files:

```typescript
const r = await tools.glob({ pattern: "tests/**/*.test.ts" });
return r.paths;
```

It returns the paths newest first.
