// A small MCP server on the official TypeScript SDK whose calls report progress and whose
// tool list changes, for the "MCP that keeps up" tests. Run: node tests/mcp/live-server.mjs
//
// - `steps {count}`: sends `count` progress notifications (progress i of total count,
//   message "step i") when the call carries a progressToken, then returns the `_meta`
//   keys it received, comma-separated. With `hold: true` it returns only once `release`
//   is called (so a client can see every report before the result: the official client
//   drops a report that reaches it in the same read as the result).
// - `release {}`: lets held `steps` calls return.
// - `reshape {add?, remove?}`: adds a tool named `add` (returning "<add> ran") and/or
//   removes the tool named `remove`, then sends notifications/tools/list_changed.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const object = (properties, required = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const text = (t) => ({ content: [{ type: "text", text: String(t) }] });
const extra = (name) => ({ name, description: `Added at run time: ${name}.`, inputSchema: object({}) });

const tools = [
  {
    name: "steps",
    description: "Report `count` progress steps, then say whether a progress token came.",
    inputSchema: object({ count: { type: "integer" }, hold: { type: "boolean" } }, ["count"]),
  },
  { name: "release", description: "Let held `steps` calls return.", inputSchema: object({}) },
  {
    name: "reshape",
    description: "Add and/or remove a tool, then announce the change.",
    inputSchema: object({ add: { type: "string" }, remove: { type: "string" } }, []),
  },
  extra("old"),
];

const server = new Server(
  { name: "ptc-live", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);
let release;
let released = new Promise((resolve) => (release = resolve));

server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, ctx) => {
  const { name, arguments: args = {} } = request.params;
  const token = request.params._meta?.progressToken;
  switch (name) {
    case "steps":
      for (let i = 1; token !== undefined && i <= args.count; i++) {
        await ctx.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: args.count, message: `step ${i}` },
        });
      }
      if (args.hold) await released;
      return text(Object.keys(request.params._meta ?? {}).sort().join(","));
    case "release":
      release();
      released = new Promise((resolve) => (release = resolve));
      return text("released");
    case "reshape": {
      if (args.remove) {
        const at = tools.findIndex((t) => t.name === args.remove);
        if (at >= 0) tools.splice(at, 1);
      }
      if (args.add) tools.push(extra(args.add));
      await server.sendToolListChanged();
      return text("reshaped");
    }
    default:
      if (tools.some((t) => t.name === name)) return text(`${name} ran`);
      throw new Error(`unknown tool ${name}`);
  }
});

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
