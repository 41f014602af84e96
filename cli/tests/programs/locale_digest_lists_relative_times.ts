// Weekly digest for the Istanbul and Berlin teams, each line in the team's own language: the
// city, who worked, the date and how long ago.
const now = Date.UTC(2025, 0, 5, 14, 7, 9);
const teams = [
  { city: "istanbul", locale: "tr-TR", people: ["Ayşe", "Mehmet", "İlker"], last: Date.UTC(2025, 0, 4, 9, 30) },
  { city: "berlin", locale: "de-DE", people: ["Jonas", "Lena"], last: Date.UTC(2024, 11, 20, 16, 0) },
  { city: "tokyo", locale: "ja-JP", people: ["Aiko", "Ren", "Sora"], last: Date.UTC(2025, 0, 2, 1, 0) },
];
const lines = teams.map((t) => {
  const days = Math.round((t.last - now) / 86_400_000);
  const ago = new Intl.RelativeTimeFormat(t.locale, { numeric: "auto" }).format(days, "day");
  const date = new Date(t.last).toLocaleDateString(t.locale, { year: "numeric", month: "short", day: "numeric" });
  const who = new Intl.ListFormat(t.locale, { type: "conjunction" }).format(t.people);
  return `${t.city.toLocaleUpperCase(t.locale)}: ${who}, ${date} (${ago})`;
});
return lines.join("\n");
