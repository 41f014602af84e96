const md = await tools.glob({ pattern: "**/*.md" });
const hidden = await tools.glob({ pattern: ".*" });
return { markdown: md.paths, total: md.total, truncated: md.truncated, dotfiles: hidden.paths };
