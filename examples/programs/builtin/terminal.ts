// Drive a Python REPL in a terminal: its state (imports, variables) lives on between sends.
// Each answer echoes the line, then what Python printed, then the next `>>> ` prompt.
const term = await tools.terminal_open({ type: "python", name: "calc" });
const printed: Record<string, string> = {};
for (const line of [
  "import math",
  "r = 3",
  "area = math.pi * r ** 2",
  "round(area, 2)",
  "[n * n for n in range(5)]",
]) {
  const answer = await tools.terminal_send({ sessionId: term.sessionId, text: line });
  if (answer.until !== "prompt") throw new Error(`no prompt after ${line}: ${answer.output}`);
  const shown = answer.output.split("\n").slice(1, -1).join("\n");
  if (shown) printed[line] = shown;
}
const closed = await tools.terminal_close({ sessionId: term.sessionId });
return { printed, closed: closed.status };
