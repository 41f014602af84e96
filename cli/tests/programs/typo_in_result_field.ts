const res = await tools.grep({ pattern: "TODO" });
// `match` instead of `matches`
return res.match.map((m: { path: string }) => m.path);
