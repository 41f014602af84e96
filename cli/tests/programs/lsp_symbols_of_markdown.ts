const outline = await tools.lsp({ operation: "documentSymbol", file_path: "README.md" });
return outline.symbols?.map((s) => s.name);
