const pwd = (await tools.bash({ command: "pwd", description: "Print workspace path" })).stdout.trim();
const [a, b] = await Promise.all([
  tools.read({ file_path: "./src/index.ts", limit: 1 }),
  tools.read({ file_path: `${pwd}/src/index.ts`, limit: 1 }),
]);
return { dotSlash: a.path, absolute: b.path, same: a.lines[0].text === b.lines[0].text };
