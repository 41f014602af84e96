// Rename a function everywhere the language server says it is used, then check the
// edited files still type-check. workspaceSymbol finds the declaration, findReferences
// every use (the declaration included); each line is rewritten at the exact columns the
// server gave (one-based UTF-16, as JavaScript strings index), with `edit`.
// Change FROM, TO and ANY_FILE (a file of the project, to pick its language server).
const FROM = "greet";
const TO = "welcome";
const ANY_FILE = "src/main.ts";

const found = await tools.lsp({ operation: "workspaceSymbol", file_path: ANY_FILE, query: FROM });
const decl = (found.symbols ?? []).find((s) => s.name === FROM && s.kind === "function");
if (!decl) throw new Error(`no function ${FROM} in the workspace`);
const refs = await tools.lsp({
  operation: "findReferences",
  file_path: decl.path,
  line: decl.line,
  character: decl.character,
});

// The columns to rewrite, per file and line.
const byLine = new Map<string, { path: string; text: string; columns: number[] }>();
for (const loc of refs.locations ?? []) {
  const key = `${loc.path}:${loc.line}`;
  const entry = byLine.get(key) ?? { path: loc.path, text: loc.text, columns: [] };
  entry.columns.push(loc.character - 1);
  byLine.set(key, entry);
}
const renamed = (text: string, columns: number[]) =>
  [...columns]
    .sort((a, b) => b - a)
    .reduce((t, c) => (t.slice(c, c + FROM.length) === FROM ? t.slice(0, c) + TO + t.slice(c + FROM.length) : t), text);

let edited = 0;
const skipped: string[] = [];
const allDone = new Set<string>(); // lines replaced with replace_all
const lines = [...byLine.values()];
for (const { path, text, columns } of lines) {
  const next = renamed(text, columns);
  if (next === text) continue;
  if (allDone.has(`${path}\n${text}`)) {
    edited += columns.length;
    continue;
  }
  try {
    await tools.edit({ file_path: path, old_string: text, new_string: next });
  } catch (e) {
    // The same line text more than once in the file: replace them all only if every one
    // of them is a reference.
    const times = Number(/occurs (\d+) times/.exec((e as Error).message)?.[1] ?? 0);
    const same = lines.filter((l) => l.path === path && l.text === text).length;
    if (times === 0 || times !== same) {
      skipped.push(`${path}: ${text.trim()}`);
      continue;
    }
    await tools.edit({ file_path: path, old_string: text, new_string: next, replace_all: true });
    allDone.add(`${path}\n${text}`);
  }
  edited += columns.length;
}

let diagnostics = 0;
for (const path of new Set(lines.map((l) => l.path))) {
  const d = await tools.lsp({ operation: "diagnostics", file_path: path });
  diagnostics += (d.diagnostics ?? []).filter((p) => p.severity === "error").length;
}
return { from: FROM, to: TO, references: refs.locations?.length ?? 0, edited, skipped, diagnostics };
