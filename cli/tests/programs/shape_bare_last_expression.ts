const r = await tools.bash({ command: "ls docs data scripts", description: "List a few directories" });
r.stdout.trim().split("\n").filter((l) => l && !l.endsWith(":"))
