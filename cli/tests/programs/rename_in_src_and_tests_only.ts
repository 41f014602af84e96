// Rename parsePrice -> parseMoney in code and tests, leave docs alone.
const hits = await tools.grep({ pattern: "parsePrice", include: "*.ts" });
const files = [...new Set(hits.matches.map((h) => h.path))];
const results = await Promise.all(
  files.map((file_path) =>
    tools.edit({ file_path, old_string: "parsePrice", new_string: "parseMoney", replace_all: true }),
  ),
);
const leftover = await tools.grep({ pattern: "parsePrice" });
return {
  changed: results.map((r) => `${r.path} (${r.replacements})`),
  leftover: leftover.matches.map((m) => `${m.path}:${m.line}`),
};
