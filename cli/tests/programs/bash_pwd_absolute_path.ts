const r = await tools.bash({ command: "pwd; ls -d \"$PWD\"/src", description: "Show workspace path" });
const [pwd, src] = r.stdout.trim().split("\n");
return { pwd, src, srcIsUnderPwd: src.startsWith(pwd + "/") };
