import type { Foo } from "./foo";

async function main() {
  const x = 1;
  throw new Error("boom in main");
}
