// The model finds the functions that are exported but not async, with a negative look-ahead
// (the thirteenth fresh pass was refused: the regex crate has no look-around).
await tools.bash({
  command: "printf 'export function a() {}\\nexport async function b() {}\\nfunction c() {}\\n' > lib.ts",
  description: "Make a module",
});
const r = await tools.grep({ pattern: "^export (?!async )function (\\w+)", path: "lib.ts" });
return r.matches.map((m) => m.text);
