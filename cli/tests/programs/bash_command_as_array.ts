const r = await tools.bash({ command: ["ls", "-la", "src"], description: "List src" });
return r.stdout;
