type Stat = { file: string; todos: number };

class Tally {
  private counts: Record<string, number> = {};
  add(file: string): void {
    this.counts[file] = (this.counts[file] ?? 0) + 1;
  }
  toList(): Stat[] {
    return Object.entries(this.counts).map(([file, todos]) => ({ file, todos }) satisfies Stat);
  }
}

const tally = new Tally();
const { matches } = await tools.grep({ pattern: "TODO|FIXME", include: "*.ts" });
matches.forEach((m) => tally.add(m.path));
const options = { pattern: "TODO" } satisfies ToolArgsMap["grep"];
const docs = await tools.grep({ ...options, path: "docs" });
return { source: tally.toList(), docsMentions: docs.total };
