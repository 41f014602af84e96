// The model reports file sizes and transfer speeds with Intl's unit style, in three locales
// (the sixteenth fresh pass found `style: "unit"` refused; it is CLDR 48's patterns now).
const sizes = [0.5, 1, 2212.009];
const out: Record<string, string[]> = {};
for (const locale of ["en-US", "de-DE", "ja-JP"]) {
  const mb = new Intl.NumberFormat(locale, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 });
  const long = new Intl.NumberFormat(locale, { style: "unit", unit: "megabyte", unitDisplay: "long", maximumFractionDigits: 1 });
  const speed = new Intl.NumberFormat(locale, { style: "unit", unit: "megabit-per-second", unitDisplay: "narrow" });
  out[locale] = [...sizes.map((s) => mb.format(s)), ...sizes.map((s) => long.format(s)), speed.format(85.25)];
}
return out;
