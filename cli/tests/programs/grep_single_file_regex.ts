// Template literals that interpolate something: \$\{
const r = await tools.grep({ pattern: "\\$\\{[a-z.]+\\}", path: "src/util/format.ts" });
return r.matches.map((m) => ({ line: m.line, uses: m.text.match(/\$\{[a-z.]+\}/g) }));
