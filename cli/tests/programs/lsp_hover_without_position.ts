const info = await tools.lsp({ operation: "hover", file_path: "src/cart.ts" });
return info.markdown;
