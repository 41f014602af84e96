const r = await tools.bash({ command: "ls src" });
return r.stdout;
