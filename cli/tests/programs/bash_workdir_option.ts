const [inSrc, inTests] = await Promise.all([
  tools.bash({ command: "ls -1 && pwd | sed 's|.*/||'", description: "List src directory", workdir: "src" }),
  tools.bash({ command: "ls -1", description: "List tests directory", workdir: "tests" }),
]);
return { src: inSrc.stdout.trim().split("\n"), tests: inTests.stdout.trim().split("\n") };
