// The model asks which CI workflows run the tests; they live in a hidden directory.
await tools.bash({ description: "Add a CI workflow", command: "mkdir -p .github/workflows && printf 'jobs:\\n  test:\\n    steps:\\n      - run: npm test\\n' > .github/workflows/ci.yml" });
const r = await tools.grep({ pattern: "npm test" });
return r.matches.map((m) => `${m.path}:${m.line}`);
