// The model works out the share of .js files that say "use strict", with glob for the files and
// grep for the matches; dist/ is .gitignored, so grep leaves a matching file out (the tenth fresh
// pass mixed the two counts with no word from either tool).
await tools.bash({
  command: "mkdir -p .git lib dist && echo 'dist/' >> .gitignore && for i in 1 2 3; do echo \"'use strict';\" > lib/m$i.js; done && echo 'var x;' > lib/plain.js && echo \"'use strict';\" > dist/bundle.js",
  description: "Make some modules and a build",
});
const [files, strict] = await Promise.all([
  tools.glob({ pattern: "**/*.js" }),
  tools.grep({ pattern: "use strict", include: "*.js" }),
]);
return { js: files.total, strict: strict.files, share: `${Math.round((100 * strict.files) / files.total)}%` };
