// The model counts the errors in the server log; logs/ is .gitignored in this git workspace.
await tools.bash({
  command: "mkdir -p .git logs && echo 'logs/' >> .gitignore && for i in $(seq 1 40); do echo \"12:00:$i ERROR request $i failed\"; done > logs/server.log",
  description: "Make a server log",
});
const everywhere = await tools.grep({ pattern: " ERROR " });
const inLogs = await tools.grep({ pattern: " ERROR ", path: "logs" });
return { everywhere: everywhere.total, ignored: everywhere.ignored, inLogs: inLogs.total, files: inLogs.files };
