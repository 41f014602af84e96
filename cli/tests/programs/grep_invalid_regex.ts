// Unescaped parenthesis: ripgrep syntax needs \( for a literal "(".
const r = await tools.grep({ pattern: "formatPrice(", include: "*.ts" });
return r.total;
