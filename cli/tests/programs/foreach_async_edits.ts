// The model renames formatPrice to formatMoney with forEach and an async callback, checks with
// grep, and reports; it never awaits the edits.
const { matches } = await tools.grep({ pattern: "formatPrice", path: "src" });
const files = [...new Set(matches.map((m) => m.path))];
files.forEach(async (f) => {
  await tools.edit({ file_path: f, old_string: "formatPrice", new_string: "formatMoney" });
});
const after = await tools.grep({ pattern: "formatPrice", path: "src" });
return `renamed formatPrice in ${files.length} files (${after.matches.length} uses left)`;
