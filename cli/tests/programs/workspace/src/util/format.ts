// Money helpers. All amounts are integer cents.

export function formatPrice(cents: number, currency = "USD"): string {
  const symbol = currency === "EUR" ? "€" : "$";
  // TODO: use Intl.NumberFormat for locale-aware output
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${symbol}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export function parsePrice(text: string): number {
  const cleaned = text.replace(/[^0-9.-]/g, "");
  // FIXME: "1.5" parses as 150 but "1.05" as 105; check rounding
  return Math.round(parseFloat(cleaned) * 100);
}
