// Summarise the products file for readers in three locales: its size, how many units are in
// stock and what they are worth, and when the file last changed.
const info = await tools.bash({
  command: "wc -c < data/products.csv; stat -c %Y data/products.csv",
  description: "Size and mtime of the products file",
});
const [bytes, mtime] = info.stdout.trim().split("\n").map(Number);
const csv = await tools.read({ file_path: "data/products.csv" });
const rows = csv.lines.slice(1).map((l) => l.text.split(","));
const units = rows.reduce((n, r) => n + Number(r[4]), 0);
const value = rows.reduce((n, r) => n + (Number(r[3]) * Number(r[4])) / 100, 0);
const modified = new Date(mtime * 1000);

const summary: Record<string, string> = {};
for (const locale of ["en-US", "de-DE", "ja-JP"]) {
  const size = (bytes / 1024).toLocaleString(locale, { maximumFractionDigits: 2 });
  const count = new Intl.NumberFormat(locale).format(units * 12);
  const worth = value.toLocaleString(locale, { style: "currency", currency: "EUR" });
  const when = modified.toLocaleDateString(locale, { year: "numeric", month: "long", day: "numeric" });
  const time = modified.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
  summary[locale] = `${size} KB; ${count} units a year worth ${worth}; changed ${when}, ${time}`;
}
return summary;
