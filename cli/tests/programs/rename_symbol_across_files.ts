// Rename formatPrice -> formatMoney everywhere it is used.
const before = await tools.grep({ pattern: "\\bformatPrice\\b" });
const files = [...new Set(before.matches.map((m) => m.path))];
const edits = [];
for (const file of files) {
  const r = await tools.edit({
    file_path: file,
    old_string: "formatPrice",
    new_string: "formatMoney",
    replace_all: true,
  });
  edits.push(`${file}: ${r.replacements}`);
}
const after = await tools.grep({ pattern: "formatPrice" });
const now = await tools.grep({ pattern: "formatMoney" });
console.log(edits.join("\n"));
return { filesChanged: files.length, remainingOld: after.total, newUses: now.total };
