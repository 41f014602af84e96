// A small MCP server on the official TypeScript SDK, for the tests that need a server
// to misbehave on purpose (exit mid-call, hang, report cancellations) or to declare
// exact schemas. Run: node tests/mcp/fixture-server.mjs
//
// FIXTURE_LOG=<file>: every cancellation the server receives is appended as a line
// `cancelled <tool> <requestId>`.
// FIXTURE_PID=<file>: the server writes its process id there as soon as it starts.
// FIXTURE_HANG=initialize | tools/list: never answer that request, ignore SIGTERM and
// stay up when stdin closes (only SIGKILL stops it), like a wedged server.
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const log = (line) => {
  if (process.env.FIXTURE_LOG) appendFileSync(process.env.FIXTURE_LOG, line + "\n");
};
const object = (properties, required = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const text = (t) => ({ content: [{ type: "text", text: String(t) }] });

const tools = [
  { name: "pid", description: "The server's process id.", inputSchema: object({}) },
  {
    name: "slow",
    description: "Wait `ms` milliseconds, then return `done`.",
    inputSchema: object({ ms: { type: "integer" } }),
    annotations: { readOnlyHint: true },
  },
  { name: "crash", description: "Exit the process in the middle of the call.", inputSchema: object({}) },
  {
    name: "weather",
    description: "Structured weather for a city.",
    inputSchema: object({ city: { type: "string" } }),
    outputSchema: object({ city: { type: "string" }, celsius: { type: "number" } }),
  },
  {
    name: "bounded",
    description: "Echo the arguments; the schema uses keywords outside ptc's subset.",
    inputSchema: { type: "object", properties: { n: { type: "integer", maximum: 3, multipleOf: 1 } } },
  },
  {
    name: "ranged",
    description: "Echo the arguments; the schema's bounds are in ptc's subset.",
    inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 3 } } },
  },
  { name: "refuse", description: "Always answers isError.", inputSchema: object({}) },
  {
    name: "rendezvous",
    description: "`wait` blocks until a `release` with the same key arrives.",
    inputSchema: object({ key: { type: "string" }, role: { enum: ["wait", "release"] } }),
    annotations: { readOnlyHint: true },
  },
];

const waiting = new Map();
const rendezvous = (key) => {
  if (!waiting.has(key)) {
    let release;
    const promise = new Promise((resolve) => (release = resolve));
    waiting.set(key, { promise, release });
  }
  return waiting.get(key);
};

if (process.env.FIXTURE_PID) {
  // Written aside and renamed, so a reader never sees the file empty.
  writeFileSync(`${process.env.FIXTURE_PID}.tmp`, String(process.pid));
  renameSync(`${process.env.FIXTURE_PID}.tmp`, process.env.FIXTURE_PID);
}
const hang = process.env.FIXTURE_HANG;
if (hang) {
  process.on("SIGTERM", () => log("ignored SIGTERM"));
  setInterval(() => {}, 1 << 30);
}

const server = new Server({ name: "ptc-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () =>
  hang === "tools/list" ? new Promise(() => {}) : { tools },
);
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {} } = request.params;
  extra.signal.addEventListener("abort", () => log(`cancelled ${name} ${extra.requestId}`));
  log(`started ${name} ${extra.requestId}`);
  switch (name) {
    case "pid":
      return text(process.pid);
    case "slow":
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      return text("done");
    case "crash":
      setTimeout(() => process.exit(3), 20);
      return new Promise(() => {});
    case "weather":
      return {
        content: [{ type: "text", text: "see structuredContent" }],
        structuredContent: { city: args.city, celsius: 21.5 },
      };
    case "bounded":
    case "ranged":
      return text(JSON.stringify(args));
    case "refuse":
      return { content: [{ type: "text", text: "refused: not today" }], isError: true };
    case "rendezvous": {
      const slot = rendezvous(args.key);
      if (args.role === "release") {
        slot.release();
        return text("released");
      }
      await slot.promise;
      return text("met");
    }
    default:
      throw new Error(`unknown tool ${name}`);
  }
});

if (hang === "initialize") {
  // Read and drop everything: the handshake never completes.
  process.stdin.resume();
} else {
  await server.connect(new StdioServerTransport());
}
// Like most stdio servers: exit when the client closes stdin (unless wedged).
process.stdin.on("end", () => hang || process.exit(0));
