// The model sums amounts per city from a spreadsheet export in Windows-1252 (the twelfth fresh
// pass read it as U+FFFD and summed "M�nchen"; read now decodes it and says from what).
await tools.bash({
  command:
    "printf 'city;amount\\r\\nM\\xfcnchen;12,5\\r\\nK\\xf6ln;3\\r\\nM\\xfcnchen;7,5\\r\\n' > umsatz.csv",
  description: "Make a cp1252 export",
});
const { lines } = await tools.read({ file_path: "umsatz.csv" });
const sums: Record<string, number> = {};
for (const { text } of lines.slice(1)) {
  const [city, amount] = text.split(";");
  sums[city] = (sums[city] ?? 0) + Number(amount.replace(",", "."));
}
return sums;
