// The official TypeScript MCP SDK's v2 client (`@modelcontextprotocol/client`) driving
// `ptc serve --http` for the tests, in either protocol era.
//
//   node tests/mcp/modern-client.mjs '<plan as JSON>'
//
// The plan is tests/mcp/python/era_client.py's: {"http", "mode": "auto" | "legacy", "elicit",
// "steps": [{"call", "args", "capture"} | {"once", "args", "state", "responses", "saveState"} |
// {"elicitations": true}]}; "auto" negotiates 2026-07-28 (server/discover, input-required
// results fulfilled through the elicitation handler), "legacy" the initialize handshake.
// Prints one JSON array: {"version"} first, then a result per step.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const plan = JSON.parse(process.argv[2]);
const answers = [plan.elicit ?? []].flat();
const manual = plan.steps.some((s) => s.once !== undefined);
const client = new Client(
  { name: "ptc-test-modern-client", version: "1.0.0" },
  {
    capabilities: plan.elicit === undefined ? {} : { elicitation: { form: {} } },
    versionNegotiation: { mode: plan.mode ?? "auto" },
    inputRequired: { autoFulfill: !manual },
  },
);
const elicitations = [];
if (plan.elicit !== undefined) {
  client.setRequestHandler("elicitation/create", async (request) => {
    const { message, requestedSchema } = request.params;
    elicitations.push({ message, requestedSchema });
    const answer = answers[Math.min(elicitations.length, answers.length) - 1];
    if (typeof answer === "object") return { action: "accept", content: answer.content };
    if (answer === "decline" || answer === "cancel") return { action: answer };
    return { action: "accept", content: { decision: answer } };
  });
}
const captured = {};
const fill = (value) => {
  if (typeof value === "string") return value.replace(/\$\{(\w+)\}/g, (_, name) => captured[name]);
  if (Array.isArray(value)) return value.map(fill);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return value;
};
const outcome = (result) => {
  if (result.resultType === "input_required") {
    return { inputRequired: { requests: result.inputRequests ?? {}, state: result.requestState } };
  }
  const text = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return { isError: result.isError === true, text, structured: result.structuredContent ?? null, meta: result._meta ?? null };
};

async function step(s) {
  if (s.elicitations) return elicitations;
  try {
    if (s.once !== undefined) {
      const params = { name: s.once, arguments: fill(s.args ?? {}) };
      if (s.state !== undefined) params.requestState = fill(s.state);
      if (s.responses !== undefined) params.inputResponses = fill(s.responses);
      const out = outcome(await client.callTool(params, { allowInputRequired: true, timeout: 120_000 }));
      if (out.inputRequired && s.saveState) captured[s.saveState] = out.inputRequired.state;
      return out;
    }
    const out = outcome(await client.callTool({ name: s.call, arguments: fill(s.args ?? {}) }, { timeout: 120_000 }));
    for (const [name, pattern] of Object.entries(s.capture ?? {})) {
      const found = new RegExp(pattern).exec(out.text);
      captured[name] = found ? found[1] : `<${name} not found>`;
    }
    return out;
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
}

await client.connect(new StreamableHTTPClientTransport(new URL(plan.http)));
const results = [{ version: client.getNegotiatedProtocolVersion?.() ?? null }];
for (const s of plan.steps) results.push(await step(s));
process.stdout.write(JSON.stringify(results) + "\n");
await client.close();
