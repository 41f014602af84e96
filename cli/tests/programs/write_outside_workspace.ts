const r = await tools.write({ file_path: "/etc/shopcart.conf", content: "currency=USD\n" });
return r.path;
