const out: string[] = [];
for (const args of [{ limit: -1 }, { limit: 0 }, { offset: 0 }, { offset: 100 }, { offset: 2.5 }, {limit: 1e9}]) {
  try {
    const r = await tools.read({ file_path: "README.md", ...args });
    out.push(JSON.stringify(args) + " -> ok " + r.lines.length + " lines, offset " + r.offset + " trunc " + r.truncated + " next " + r.next_offset);
  } catch (e) { out.push(JSON.stringify(args) + " -> " + (e as Error).message); }
}
return out;
