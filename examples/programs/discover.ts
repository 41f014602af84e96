// Discovery in one program: find a tool by what it does, read its declaration, call it.
// Over the recorded catalog (870 tools):
//   ptc run --config <catalog ptc.toml> --discovery on examples/programs/discover.ts
const { tools: found, total } = await tools.search_tools({ query: "current time in a timezone", limit: 3 });
console.log(`${total} matches; best:\n${found.map((t) => `${t.name}: ${t.signature}`).join("\n")}`);
const best = found[0];
const declaration = await tools.describe_tools({ names: [best.name] });
if (!declaration.includes("timezone")) throw new Error(`${best.name} takes no timezone`);
// A name known only at run time: call_tool (a name written out works too: tools.time__get_current_time(…)).
const now = await tools.call_tool({ name: best.name, arguments: { timezone: "Europe/Paris" } });
return { tool: best.name, now };
