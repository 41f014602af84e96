export { Cart } from "./cart";
export type { CartLine } from "./cart";
export { Inventory } from "./inventory";
export { salesReport } from "./report";
export { formatPrice, parsePrice } from "./util/format";
