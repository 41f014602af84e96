// The model prepends a license header, joining the read lines themselves instead of their text.
const r = await tools.read({ file_path: "src/util/format.ts" });
const content = "// SPDX-License-Identifier: MIT\n" + r.lines.join("\n") + "\n";
await tools.write({ file_path: "src/util/format.ts", content });
return `added the header to src/util/format.ts (${r.lines.length} lines)`;
