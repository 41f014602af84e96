const { matches } = await tools.grep({ pattern: "TODO" });
for (const m of matches) {
  if (m.path.startsWith("src/")) {
    console.log(m.path, m.line);
}
return matches.length;
