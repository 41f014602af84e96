// Serves one recorded `tools/list` of the catalog (testing/catalog/lists/<name>.json) over
// stdio, on the official TypeScript SDK, exactly as recorded: the tests of hundreds of tools
// connect 42 of these instead of the published servers (which need credentials and the
// network). Run: node tests/mcp/catalog-server.mjs <list.json>
//
// A call answers with what it was asked: text `<tool> <arguments as JSON>`, and, for a tool
// with an `outputSchema`, the smallest `structuredContent` that schema accepts.
//
// CATALOG_DELAY_MS=<n>: wait that long before reading stdin, so `initialize` waits (a server that starts
// slowly). CATALOG_FAIL=1: exit with status 3 and a message on stderr before the handshake
// (a server that cannot start). CATALOG_INSTRUCTIONS=<text>: the `instructions` the server
// gives in its handshake (the recorded servers gave none). CATALOG_LOG=<file>: append `started` when the process starts
// and `listed` for each `tools/list` it answers.
import { appendFileSync, readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const log = (line) => {
  if (process.env.CATALOG_LOG) appendFileSync(process.env.CATALOG_LOG, line + "\n");
};
log("started");
if (process.env.CATALOG_FAIL === "1") {
  process.stderr.write("catalog-server: failing on purpose (CATALOG_FAIL=1)\n");
  process.exit(3);
}

const file = process.argv[2];
const { tools } = JSON.parse(readFileSync(file, "utf8"));
const delay = Number(process.env.CATALOG_DELAY_MS ?? 0);

// The smallest value a schema accepts: required properties only, first enum member, minimums;
// local `$ref`s (`#`, `#/$defs/…`, `#/definitions/…`) resolve in `root`.
const sample = (schema = {}, root = schema) => {
  if (typeof schema.$ref === "string") {
    const [, section, name] = schema.$ref.match(/^#\/(\$defs|definitions)\/(.*)$/) ?? [];
    const target = schema.$ref === "#" ? root : root[section]?.[name?.replace(/~1/g, "/").replace(/~0/g, "~")];
    return sample(target, root);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branch) && branch.length) return sample(branch[0], root);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const out = {};
      for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key], root);
      return out;
    }
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, root));
    case "string":
      return "x".repeat(schema.minLength ?? 0);
    case "number":
    case "integer":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return {};
  }
};

const server = new Server(
  { name: `catalog-${file.split("/").pop().replace(/\.json$/, "")}`, version: "1.0.0" },
  { capabilities: { tools: {} }, instructions: process.env.CATALOG_INSTRUCTIONS },
);
server.setRequestHandler(ListToolsRequestSchema, async () => {
  log("listed");
  return { tools };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  const tool = tools.find((t) => t.name === name);
  if (!tool) return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
  const result = { content: [{ type: "text", text: `${name} ${JSON.stringify(args ?? {})}` }] };
  if (tool.outputSchema) result.structuredContent = sample(tool.outputSchema);
  return result;
});
// A slow start: nothing is read (so `initialize` waits) until the delay has passed.
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
await server.connect(new StdioServerTransport());
