"""The official Python MCP SDK's client (`mcp` 2.3) driving `ptc serve --http` for the tests.

    python era_client.py '<plan as JSON>'

plan: {"http": "http://127.0.0.1:PORT/mcp", "mode": "auto" | "legacy",
       "elicit": answers (optional; as tests/mcp/client.mjs: "allow_once" | "allow_session" |
                 "deny" | "decline" | "cancel" | {"content": {...}}; the last one repeats),
       "steps": [
         {"call": NAME, "args": {...}, "capture": {"VAR": "regex with one group"}}
           -> {isError, text, structured, meta}   (or {error} when it raised)
         {"once": NAME, "args": {...}, "state": S?, "responses": R?}
           -> one tools/call without the automatic input-required rounds:
              {inputRequired: {requests, state}} or {isError, text, meta} or {error}
         {"elicitations": true} -> the forms received so far [{message, requestedSchema}]
       ]}
Strings in args may name captured values as ${VAR}; "state" may be "${VAR}" too.
The `mode` is the client's own: "auto" probes server/discover and speaks 2026-07-28 (no session,
input-required results); "legacy" does the initialize handshake (sessions, elicitation requests).
Prints one JSON array with a result per step, plus {"version": negotiated} first.
"""

import asyncio
import json
import re
import sys

import mcp.types as types
from mcp.client.client import Client

plan = json.loads(sys.argv[1])
answers = plan.get("elicit")
answers = answers if isinstance(answers, list) else [answers]
elicitations = []
captured = {}


async def elicit(_ctx, params):
    elicitations.append({"message": params.message, "requestedSchema": params.requested_schema})
    answer = answers[min(len(elicitations), len(answers)) - 1]
    if isinstance(answer, dict):
        return types.ElicitResult(action="accept", content=answer["content"])
    if answer in ("decline", "cancel"):
        return types.ElicitResult(action=answer)
    return types.ElicitResult(action="accept", content={"decision": answer})


def fill(value):
    if isinstance(value, str):
        return re.sub(r"\$\{(\w+)\}", lambda m: captured[m.group(1)], value)
    if isinstance(value, list):
        return [fill(v) for v in value]
    if isinstance(value, dict):
        return {k: fill(v) for k, v in value.items()}
    return value


def outcome(result):
    if isinstance(result, types.InputRequiredResult):
        requests = {
            k: json.loads(v.model_dump_json(by_alias=True, exclude_none=True))
            for k, v in (result.input_requests or {}).items()
        }
        return {"inputRequired": {"requests": requests, "state": result.request_state}}
    text = "\n".join(b.text for b in result.content if getattr(b, "type", None) == "text")
    return {
        "isError": bool(result.is_error),
        "text": text,
        "structured": result.structured_content,
        "meta": result.meta,
    }


async def step(client, s):
    if s.get("elicitations"):
        return elicitations
    try:
        if "once" in s:
            result = await client.session.call_tool(
                s["once"],
                fill(s.get("args", {})),
                request_state=fill(s.get("state")),
                input_responses=fill(s.get("responses")),
                allow_input_required=True,
            )
            out = outcome(result)
            if "inputRequired" in out and "saveState" in s:
                captured[s["saveState"]] = out["inputRequired"]["state"]
            return out
        result = await client.call_tool(s["call"], fill(s.get("args", {})))
        out = outcome(result)
        for var, pattern in s.get("capture", {}).items():
            found = re.search(pattern, out["text"])
            captured[var] = found.group(1) if found else f"<{var} not found>"
        return out
    except Exception as error:  # noqa: BLE001 - the test reads what the client saw
        return {"error": f"{type(error).__name__}: {error}"}


async def main():
    callback = elicit if plan.get("elicit") is not None else None
    async with Client(plan["http"], mode=plan.get("mode", "auto"), elicitation_callback=callback) as client:
        results = [{"version": client.session.protocol_version}]
        for s in plan["steps"]:
            results.append(await step(client, s))
    print(json.dumps(results, default=str))


asyncio.run(main())
