// A witness of side effects for the durable-run tests, on the official TypeScript SDK: each
// call records the idempotency key ptc sends in `_meta["ptc/idempotencyKey"]` in PostgreSQL,
// through Debian's `psql`.
//
// Run: node tests/mcp/witness-server.mjs POSTGRES_URL HOLD_FILE
//
// Tables (made by the test): `attempts (key, label)`, one row per call that reached the
// server; `witness (key PRIMARY KEY, label)`, the effect, at most once per key.
//
// - `record` (idempotentHint): inserts its key unless it is there (a repeat changes nothing);
// - `record_once` (not idempotent): inserts its key; a repeat fails on the unique key.
//
// When HOLD_FILE exists and holds the call's label, the call does its effect, then creates
// HOLD_FILE.reached and waits until HOLD_FILE is gone before it answers: the test kills ptc
// between the effect and its commit.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, hold] = process.argv.slice(2);
const input = {
  type: "object",
  properties: { label: { type: "string" } },
  required: ["label"],
  additionalProperties: false,
};
const tools = [
  {
    name: "record",
    description: "Record one effect under the call's idempotency key (once per key).",
    inputSchema: input,
    annotations: { idempotentHint: true },
  },
  {
    name: "record_once",
    description: "Record one effect under the call's idempotency key (a repeat fails).",
    inputSchema: input,
  },
];

// psql reads the statements from stdin, where `:'name'` quotes a variable as a literal.
const sql = (statements, vars) =>
  execFileSync(
    "psql",
    [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`])],
    { input: statements, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] },
  );

const held = (label) => hold && existsSync(hold) && readFileSync(hold, "utf8").trim() === label;

const server = new Server({ name: "ptc-witness", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  const key = request.params._meta?.["ptc/idempotencyKey"];
  if (!key) return { content: [{ type: "text", text: "no idempotency key" }], isError: true };
  const vars = { key, label: args.label };
  sql("INSERT INTO attempts (key, label) VALUES (:'key', :'label');", vars);
  const conflict = name === "record" ? " ON CONFLICT (key) DO NOTHING" : "";
  try {
    sql(`INSERT INTO witness (key, label) VALUES (:'key', :'label')${conflict};`, vars);
  } catch (e) {
    return { content: [{ type: "text", text: `${key} is recorded already` }], isError: true };
  }
  if (held(args.label)) {
    writeFileSync(`${hold}.reached`, key);
    while (existsSync(hold)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { content: [{ type: "text", text: `recorded ${args.label}` }] };
});

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
