// The model formats a ledger's balances in accounting style (negatives in parentheses).
const fmt = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencySign: "accounting" });
return [1200, -350.5].map((v) => fmt.format(v));
