import { formatPrice } from "./util/format";
import type { CartLine } from "./cart";

export function salesReport(lines: CartLine[]): string {
  const rows = lines.map((l) => {
    const total = l.product.priceCents * l.quantity;
    return `${l.product.sku}\t${l.quantity}\t${formatPrice(total)}`;
  });
  // TODO: add a grand total row
  return ["sku\tqty\ttotal", ...rows].join("\n");
}
