const sum = await tools.add({ a: 1, b: 2 });
return function describe() {
  return `sum is ${sum}`;
};
