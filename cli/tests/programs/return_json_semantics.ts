const sum = await tools.add({ a: 0.1, b: 0.2 });
return {
  sum,
  missing: undefined,
  nan: NaN,
  inf: Infinity,
  negZero: -0,
  nested: [undefined, null, "x"],
  date: new Date(0),
};
