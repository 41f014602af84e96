// A real MCP client (the official TypeScript SDK) driving `ptc serve` for the tests.
//
//   node tests/mcp/client.mjs '<plan as JSON>'
//
// plan: { "stdio": { "command": "...", "args": [...] } | "http": "http://127.0.0.1:PORT/mcp",
//         "headers": { "Authorization": "Bearer …" } (HTTP only, optional),
//         "steps": [ { "list": true }
//                  | { "call": "run_code", "args": {...}, "abortAfterMs": 200 }
//                  | { "parallel": [ <call step>, ... ] } ] }
// Prints one JSON array with a result per step: a list step gives [{name, description,
// inputSchema, outputSchema?}], a call step {isError, text, structured} or {error} when it threw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);
const transport = plan.stdio
  ? new StdioClientTransport({ ...plan.stdio, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(plan.http), { requestInit: { headers: plan.headers ?? {} } });
const client = new Client({ name: "ptc-test-client", version: "1.0.0" });
await client.connect(transport);

async function call(step) {
  const controller = new AbortController();
  if (step.abortAfterMs !== undefined) setTimeout(() => controller.abort(), step.abortAfterMs);
  try {
    const result = await client.callTool({ name: step.call, arguments: step.args ?? {} }, undefined, {
      signal: controller.signal,
      timeout: 120_000,
    });
    const text = result.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n");
    return { isError: result.isError === true, text, structured: result.structuredContent ?? null };
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
}

async function run(step) {
  if (step.list) {
    const { tools } = await client.listTools();
    return tools.map(({ name, description, inputSchema, outputSchema }) =>
      outputSchema ? { name, description, inputSchema, outputSchema } : { name, description, inputSchema });
  }
  if (step.parallel) return Promise.all(step.parallel.map(call));
  if (step.sleepMs) return new Promise((resolve) => setTimeout(() => resolve(null), step.sleepMs));
  return call(step);
}

const results = [];
for (const step of plan.steps) results.push(await run(step));
process.stdout.write(JSON.stringify(results) + "\n");
await client.close();
