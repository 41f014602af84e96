// Model uses ripgrep's flag name `glob` instead of `include`.
const r = await tools.grep({ pattern: "describe\\(", glob: "*.test.ts" });
return r.matches.map((m) => m.path);
