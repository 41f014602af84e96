const r = await tools.edit({ file_path: "src/checkout.ts", old_string: "TODO", new_string: "DONE" });
return r;
