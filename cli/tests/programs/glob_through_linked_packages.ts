// The model lists the entry points of the packages in node_modules, which are symbolic links
// (pnpm, npm link); the thirteenth fresh pass got none, with no word of the links.
await tools.bash({
  command: "mkdir -p packages/minimist node_modules && echo 'module.exports = 1' > packages/minimist/index.js && ln -s ../packages/minimist node_modules/minimist",
  description: "Link a package",
});
const g = await tools.glob({ pattern: "node_modules/*/index.js" });
return g.paths;
