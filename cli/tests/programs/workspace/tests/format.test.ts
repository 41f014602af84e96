import { expect, it } from "vitest";
import { formatPrice, parsePrice } from "../src/util/format";

it("formats cents", () => {
  expect(formatPrice(2999)).toBe("$29.99");
  expect(formatPrice(-5)).toBe("-$0.05");
  expect(formatPrice(100, "EUR")).toBe("€1.00");
});

it("parses prices", () => {
  expect(parsePrice("$12.50")).toBe(1250);
});
