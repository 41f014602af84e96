// A real MCP client (the official TypeScript SDK) driving `ptc serve` for the tests.
//
//   node tests/mcp/client.mjs '<plan as JSON>'
//
// plan: { "stdio": { "command": "...", "args": [...] } | "http": "http://127.0.0.1:PORT/mcp",
//         "headers": { "Authorization": "Bearer …" } (HTTP only, optional),
//         "steps": [ { "list": true }
//                  | { "call": "run_code", "args": {...}, "abortAfterMs": 200 }
//                  | { "parallel": [ <call step>, ... ] }
//                  | { "awaitTools": { "has": [names], "lacks": [names], "mentions": "text" } } ] }
// "elicit" (optional): declare the elicitation capability and answer each
// elicitation/create with the next of its answers (a string or a list; the last one
// repeats): "allow_once" | "allow_session" | "deny" (accepted with that decision),
// "decline", "cancel", "never" (no answer), {"after_ms": N, "answer": A}, or
// {"content": {...}} (accepted with that content). The step
// { "elicitations": true } gives the requests received so far [{message, requestedSchema}].
// A call step with "progress": true asks for progress (a progressToken) and adds the
// notifications it received as `progress` [{progress, total?, message?}]; with
// "releaseAt": N and "release": <call step>, that call is made once N reports arrived. An awaitTools
// step waits for notifications/tools/list_changed, lists, and repeats until the list has
// and lacks the named tools (and a description mentions the text); it gives {notified,
// names} (or {error} after 60 s).
// Prints one JSON array with a result per step: a list step gives [{name, description,
// inputSchema, outputSchema?}], a call step {isError, text, structured} or {error} when it threw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(process.argv[2]);
const transport = plan.stdio
  ? new StdioClientTransport({ ...plan.stdio, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(plan.http), { requestInit: { headers: plan.headers ?? {} } });
const capabilities = plan.elicit === undefined ? {} : { elicitation: {} };
const client = new Client({ name: "ptc-test-client", version: "1.0.0" }, { capabilities });
const elicitations = [];
if (plan.elicit !== undefined) {
  const answers = [plan.elicit].flat();
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const { message, requestedSchema } = request.params;
    elicitations.push({ message, requestedSchema });
    let answer = answers[Math.min(elicitations.length, answers.length) - 1];
    if (typeof answer === "object" && answer.content !== undefined) {
      return { action: "accept", content: answer.content };
    }
    if (typeof answer === "object") {
      await new Promise((resolve) => setTimeout(resolve, answer.after_ms));
      answer = answer.answer;
    }
    if (answer === "never") return new Promise(() => {});
    if (answer === "decline" || answer === "cancel") return { action: answer };
    return { action: "accept", content: { decision: answer } };
  });
}
let listChanged = 0;
let onListChanged = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged += 1;
  onListChanged();
});
await client.connect(transport);

async function awaitTools({ has = [], lacks = [], mentions = "" }) {
  const deadline = Date.now() + 60_000;
  let seen = 0;
  for (;;) {
    if (listChanged === seen) {
      const left = deadline - Date.now();
      const changed = new Promise((resolve) => (onListChanged = resolve));
      let timer;
      const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(left, 0))));
      const outcome = await Promise.race([changed, timedOut]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        return { error: `no fitting tools/list_changed within 60 s (${listChanged} seen)` };
      }
    }
    seen = listChanged;
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    const described = tools.some((t) => (t.description ?? "").includes(mentions));
    if (has.every((n) => names.includes(n)) && lacks.every((n) => !names.includes(n)) && described) {
      return { notified: listChanged, names };
    }
  }
}

async function call(step) {
  const controller = new AbortController();
  if (step.abortAfterMs !== undefined) setTimeout(() => controller.abort(), step.abortAfterMs);
  const progress = [];
  const released = [];
  const onprogress = step.progress
    ? (p) => {
        progress.push(p);
        if (progress.length === step.releaseAt) released.push(call(step.release));
      }
    : undefined;
  try {
    const result = await client.callTool({ name: step.call, arguments: step.args ?? {} }, undefined, {
      signal: controller.signal,
      timeout: 120_000,
      onprogress,
    });
    const text = result.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n");
    const out = { isError: result.isError === true, text, structured: result.structuredContent ?? null };
    await Promise.all(released);
    return step.progress ? { ...out, progress } : out;
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
  if (step.awaitTools) return awaitTools(step.awaitTools);
  if (step.elicitations) return elicitations;
  if (step.sleepMs) return new Promise((resolve) => setTimeout(() => resolve(null), step.sleepMs));
  return call(step);
}

const results = [];
for (const step of plan.steps) results.push(await run(step));
process.stdout.write(JSON.stringify(results) + "\n");
await client.close();
