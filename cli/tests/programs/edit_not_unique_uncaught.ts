// `formatPrice(` appears twice in src/cart.ts? No: once. `l.product` appears many times.
const r = await tools.edit({
  file_path: "src/cart.ts",
  old_string: "l.product.sku",
  new_string: "l.product.id",
});
return r.replacements;
