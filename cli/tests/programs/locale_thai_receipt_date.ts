// A receipt header for the Bangkok shop: the sale date written the Thai way.
const sold = new Date(Date.UTC(2026, 2, 29, 7, 15));
const header = sold.toLocaleDateString("th-TH", { year: "numeric", month: "long", day: "numeric" });
return `ใบเสร็จรับเงิน — ${header}`;
