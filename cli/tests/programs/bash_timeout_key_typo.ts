const r = await tools.bash({ command: "ls tests", description: "List test files", timeout: 5000 });
return r.stdout;
