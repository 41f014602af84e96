const names = ["src/cart.ts", "src/checkout.ts", "src/report.ts"];
const contents = await Promise.all(names.map((n) => tools.read({ file_path: n, limit: 1 })));
return contents.map((c) => c.path);
