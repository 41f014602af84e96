// Several MCP sessions (the official TypeScript SDK client over streamable HTTP) driving one
// `ptc serve --http` in an interleaved script, for the owner-isolation tests.
//
//   node tests/mcp/sessions.mjs '<plan as JSON>'
//
// plan: { "http": "http://127.0.0.1:PORT/mcp" | "stdio": { "command": "...", "args": [...] },
//         "steps": [ { "session": "a", "call": "bash", "args": {...}, "save": "t" }
//                  | { "session": "a", "end": true } ] }
// A session connects on its first step. "{{t.task_id}}" in a step's arguments is the field of
// the structured result saved as "t". `end` terminates the session (HTTP DELETE). Prints one
// JSON array with {isError, text, structured} per call step (null for `end`). Sessions not
// ended are left open on the server when the script exits (over stdio, the one session ends
// with the script: its stdin closes).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);
const sessions = new Map();
const saved = {};

async function session(name) {
  if (!sessions.has(name)) {
    const transport = plan.stdio
      ? new StdioClientTransport({ ...plan.stdio, stderr: "inherit" })
      : new StreamableHTTPClientTransport(new URL(plan.http));
    const client = new Client({ name: `ptc-test-${name}`, version: "1.0.0" });
    await client.connect(transport);
    sessions.set(name, { client, transport });
  }
  return sessions.get(name);
}

function fill(args) {
  const text = JSON.stringify(args ?? {}).replace(/\{\{(\w+)\.(\w+)\}\}/g, (_, name, field) => {
    if (!(name in saved)) throw new Error(`nothing saved as ${name}`);
    return String(saved[name][field]);
  });
  return JSON.parse(text);
}

const results = [];
for (const step of plan.steps) {
  const { client, transport } = await session(step.session);
  if (step.end) {
    await transport.terminateSession();
    await client.close();
    sessions.delete(step.session);
    results.push(null);
    continue;
  }
  const result = await client.callTool({ name: step.call, arguments: fill(step.args) }, undefined, {
    timeout: 120_000,
  });
  const text = result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  if (step.save) saved[step.save] = result.structuredContent ?? {};
  results.push({ isError: result.isError === true, text, structured: result.structuredContent ?? null });
}
process.stdout.write(JSON.stringify(results) + "\n");
// Leave the other sessions open on the server: only close the connections.
for (const { client } of sessions.values()) await client.close();
