const r = await tools.grep({ pattern: "formatPrice", include: ["*.ts", "*.md"] });
return r.files;
