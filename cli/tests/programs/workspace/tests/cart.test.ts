import { describe, expect, it } from "vitest";
import { Cart } from "../src/cart";

describe("Cart", () => {
  it("sums line totals", () => {
    const cart = new Cart();
    cart.add({ sku: "A-100", name: "Mug", priceCents: 1250 }, 2);
    cart.add({ sku: "B-200", name: "Tea", priceCents: 499 });
    expect(cart.totalCents()).toBe(2999);
  });

  it("removes a line", () => {
    const cart = new Cart();
    cart.add({ sku: "A-100", name: "Mug", priceCents: 1250 });
    expect(cart.remove("A-100")).toBe(true);
    expect(cart.totalCents()).toBe(0);
  });
});
