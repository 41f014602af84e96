import { formatPrice } from "./util/format";

export interface Product {
  sku: string;
  name: string;
  priceCents: number;
}

export interface CartLine {
  product: Product;
  quantity: number;
}

export class Cart {
  private lines: CartLine[] = [];

  add(product: Product, quantity = 1): void {
    // TODO: reject negative quantities
    const line = this.lines.find((l) => l.product.sku === product.sku);
    if (line) {
      line.quantity += quantity;
    } else {
      this.lines.push({ product, quantity });
    }
  }

  remove(sku: string): boolean {
    const before = this.lines.length;
    this.lines = this.lines.filter((l) => l.product.sku !== sku);
    return this.lines.length < before;
  }

  totalCents(): number {
    return this.lines.reduce((sum, l) => sum + l.product.priceCents * l.quantity, 0);
  }

  summary(): string {
    // FIXME: summary ignores discounts
    return this.lines
      .map((l) => `${l.quantity} x ${l.product.name} @ ${formatPrice(l.product.priceCents)}`)
      .join("\n");
  }
}
