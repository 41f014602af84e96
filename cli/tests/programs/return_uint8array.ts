console.log("%s has %d items", "cart", 3, { extra: true });
return new Uint8Array([1, 2, 3]);
