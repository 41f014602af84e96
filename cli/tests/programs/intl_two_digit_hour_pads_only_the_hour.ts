// The model formats an event's start with a two-digit hour in four locales.
const when = new Date(Date.UTC(2024, 2, 5, 7, 4));
return ["en-US", "de-DE", "ja-JP", "fr-FR"].map(
  (l) => `${l}: ${when.toLocaleString(l, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" })}`,
);
