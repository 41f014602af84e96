// Handle a failing call with try/catch and keep going.
let recovered = 0;
for (const message of ["disk full", "quota exceeded"]) {
  try {
    await tools.fail({ message });
  } catch (e) {
    if (e instanceof ToolCallError) {
      console.log(`${e.toolName} failed: ${e.message}`);
      recovered++;
    } else {
      throw e;
    }
  }
}
const sum = await tools.add({ a: recovered, b: 40 });
return `recovered from ${recovered} failures; answer = ${sum}`;
