const cfg = await tools.glob({ pattern: "**/eslint.config.*" });
if (cfg.total === 0) {
  throw new Error("no eslint config found; expected eslint.config.js at the root");
}
return cfg.paths;
