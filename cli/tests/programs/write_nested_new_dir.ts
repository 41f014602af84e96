const body = `import { describe, expect, it } from "vitest";
import { Inventory } from "../../src/inventory";

describe("Inventory", () => {
  it("refuses to oversell", () => {
    const inv = new Inventory();
    inv.restock("A-100", 1);
    expect(inv.take("A-100", 2)).toBe(false);
  });
});
`;
const w = await tools.write({ file_path: "tests/unit/inventory.test.ts", content: body });
const all = await tools.glob({ pattern: "tests/**/*.test.ts" });
return { created: w.created, lines: w.lines, tests: [...all.paths].sort() };
