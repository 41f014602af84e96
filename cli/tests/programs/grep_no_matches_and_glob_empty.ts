const [g, f] = await Promise.all([
  tools.grep({ pattern: "XYZZY_NOT_THERE" }),
  tools.glob({ pattern: "**/*.rs" }),
]);
return { grep: g, glob: f };
