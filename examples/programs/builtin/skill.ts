// Load the `license-header` skill and follow it: every `.ts` source under src/ (not `.d.ts`)
// starts with the skill's header.txt and a blank line.
const skill = await tools.skill({ name: "license-header" });
console.log(`Following ${skill.name}: ${skill.description}`);
const header = (await tools.skill({ name: skill.name, file: "header.txt" })).text;

const sources = (await tools.glob({ pattern: "src/**/*.ts" })).paths
  .filter((p) => !p.endsWith(".d.ts"))
  .sort();
const added: string[] = [];
for (const path of sources) {
  const { lines } = await tools.read({ file_path: path });
  const text = lines.map((l) => l.text).join("\n");
  if (text.startsWith(header)) continue;
  await tools.write({ file_path: path, content: `${header}\n${text}\n` });
  added.push(path);
}
return { checked: sources.length, added };
