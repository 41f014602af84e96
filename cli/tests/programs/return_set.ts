const { matches } = await tools.grep({ pattern: "import", path: "src" });
return new Set(matches.map((m) => m.path));
