const inSrc = await tools.glob({ pattern: "**/*.ts", path: "src" });
const braces = await tools.glob({ pattern: "{docs,data}/*" });
return { inSrc: inSrc.paths, braces: braces.paths };
