// Invoice totals for regional offices: each office sees the amount in its own currency and
// locale, and the invoice date as its dateStyle "medium".
const offices = [
  { locale: "bn-IN", currency: "INR", amount: 1234567.891 },
  { locale: "fr-CH", currency: "CHF", amount: 69.93 },
  { locale: "uk-UA", currency: "EUR", amount: 69.93 },
  { locale: "ko-KR", currency: "KRW", amount: 1500000 },
  { locale: "ar-EG", currency: "EGP", amount: 2500.5 },
];
const issued = new Date(Date.UTC(2026, 11, 2, 9, 30));
return offices.map(({ locale, currency, amount }) => {
  const money = new Intl.NumberFormat(locale, { style: "currency", currency }).format(amount);
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(issued);
  const digits = new Intl.NumberFormat(locale).resolvedOptions().numberingSystem;
  return `${locale}: ${money} on ${date} (${digits})`;
});
