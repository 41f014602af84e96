const r = await tools.grep({ pattern: "deprecated" });
return r.matches.map((m) => m.path).join("\n");
