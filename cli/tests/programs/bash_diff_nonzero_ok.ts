await tools.bash({ command: "cp src/report.ts report.orig.ts", description: "Back up report.ts" });
await tools.edit({ file_path: "src/report.ts", old_string: "sku\\tqty\\ttotal", new_string: "SKU\\tQTY\\tTOTAL" });
const d = await tools.bash({
  command: "diff -U0 report.orig.ts src/report.ts",
  description: "Show what changed in report.ts",
});
// diff exits 1 when the files differ: a result, not an error.
return { exit_code: d.exit_code, changed: d.stdout.split("\n").filter((l) => /^[-+][^-+]/.test(l)) };
