import type { CartLine } from "./src/cart";
export type Summary = { file: string; exports: string[] };

type GrepHit = { path: string; line: number; text: string };

const hits: GrepHit[] = (await tools.grep({ pattern: "^export ", include: "*.ts", path: "src" })).matches;
const byFile = new Map<string, string[]>();
for (const h of hits) {
  const name = h.text.match(/^export (?:type |interface |class |function |\{)\s*(\w+)/)?.[1] ?? "?";
  byFile.set(h.path, [...(byFile.get(h.path) ?? []), name]);
}
const summaries: Summary[] = [...byFile].map(([file, exports]) => ({ file, exports }));
const unused: CartLine | undefined = undefined;
return summaries;
