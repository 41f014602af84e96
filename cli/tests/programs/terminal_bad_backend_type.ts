const t = await tools.terminal_open({ type: "zsh", name: "main" });
return t.sessionId;
