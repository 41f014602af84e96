const res = await fetch("https://registry.npmjs.org/shopcart");
const meta = await res.json();
return meta["dist-tags"];
