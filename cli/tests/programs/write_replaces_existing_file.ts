const newConfig = {
  currency: "EUR",
  taxRate: 0.2,
  lowStockThreshold: 10,
  features: { discounts: true, persistInventory: false },
};
const w = await tools.write({
  file_path: "data/config.json",
  content: JSON.stringify(newConfig, null, 2) + "\n",
});
return { created: w.created, lines: w.lines, hunks: w.hunks };
