// The model takes the integer digits of a euro amount from formatToParts.
const parts = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).formatToParts(1234.5);
return parts.filter((p) => p.type === "integer").map((p) => p.value).join("");
