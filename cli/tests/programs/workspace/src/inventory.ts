export class Inventory {
  private stock = new Map<string, number>();

  restock(sku: string, count: number): void {
    this.stock.set(sku, (this.stock.get(sku) ?? 0) + count);
  }

  take(sku: string, count: number): boolean {
    const have = this.stock.get(sku) ?? 0;
    if (have < count) {
      return false;
    }
    this.stock.set(sku, have - count);
    return true;
  }

  // TODO: persist stock levels between runs
  level(sku: string): number {
    return this.stock.get(sku) ?? 0;
  }
}
