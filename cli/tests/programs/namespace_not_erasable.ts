namespace Money {
  export const cents = (s: string) => Math.round(parseFloat(s) * 100);
}
const csv = await tools.read({ file_path: "data/products.csv", offset: 2, limit: 1 });
return Money.cents(csv.lines[0].text.split(",")[3]);
