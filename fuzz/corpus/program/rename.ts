// Rename a symbol across the workspace with `edit`. grep finds the files that use it as
// a whole word. A file where the name never appears inside a longer identifier gets one
// `replace_all` edit; any other file is edited one use at a time, with just enough
// surrounding lines to make `old_string` unique (so `oldNameSuffix` is left alone).
// Repeats until no whole-word use is left, so capped grep results are handled too.
// Change FROM and TO to rename something else.
const FROM = "oldName";
const TO = "newName";
const WORD = `\\b${FROM}\\b`;
const rename = (text: string) => text.replace(new RegExp(WORD, "g"), TO);
const uses = (text: string) => (text.match(new RegExp(WORD, "g")) ?? []).length;

// Rename the uses on `line` (and on the context lines taken with it).
async function editAround(file: string, line: number, text: string): Promise<number> {
  for (let k = 0; k <= 5; k++) {
    let old = text;
    if (k > 0) {
      const window = await tools.read({ file_path: file, offset: Math.max(1, line - k), limit: 2 * k + 1 });
      old = window.lines.map((l) => l.text).join("\n");
    }
    try {
      await tools.edit({ file_path: file, old_string: old, new_string: rename(old) });
      return uses(old);
    } catch (e) {
      if (!/occurs \d+ times/.test((e as Error).message)) throw e;
    }
  }
  throw new Error(`no unique context around ${file}:${line}`);
}

const edited: Record<string, number> = {};
const skipped: Record<string, string> = {};
for (let round = 0; round < 20; round++) {
  const hits = await tools.grep({ pattern: WORD });
  const files = [...new Set(hits.matches.map((m) => m.path))].filter((f) => !(f in skipped));
  if (files.length === 0) break;
  for (const file of files) {
    const embedded = await tools.grep({ pattern: `\\w${FROM}|${FROM}\\w`, path: file });
    if (embedded.total === 0) {
      const r = await tools.edit({ file_path: file, old_string: FROM, new_string: TO, replace_all: true });
      edited[file] = (edited[file] ?? 0) + r.replacements;
      continue;
    }
    // One use at a time, re-reading the file's matches after every edit.
    for (let step = 0; step < 1000; step++) {
      const next = (await tools.grep({ pattern: WORD, path: file })).matches[0];
      if (!next) break;
      try {
        edited[file] = (edited[file] ?? 0) + (await editAround(file, next.line, next.text));
      } catch (e) {
        skipped[file] = `line ${next.line}: ${(e as Error).message}`;
        break;
      }
    }
  }
}
const left = await tools.grep({ pattern: WORD });
return { from: FROM, to: TO, edited, skipped, remaining: left.total };
