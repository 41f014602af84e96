// Where is Cart defined? `export { Cart } from "./cart";` is the first line.
const def = await tools.lsp({ operation: "goToDefinition", file_path: "src/index.ts", line: 0, character: 9 });
return def.locations;
