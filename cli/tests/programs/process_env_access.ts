const home = process.env.HOME;
const r = await tools.bash({ command: "pwd", description: "Print working directory" });
return { home, cwd: r.stdout.trim() };
