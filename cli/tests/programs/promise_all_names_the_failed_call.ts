// The model sums pairs in parallel; one pair holds a string. The error's site is the same for
// every call, so it must say which call failed.
const pairs = [[1, 2], [3, "4"], [5, 6]];
const sums = await Promise.all(pairs.map(([a, b]) => tools.add({ a, b })));
return sums;
