// Read README.md 10 lines at a time, following next_offset.
const pages: string[] = [];
let offset: number | undefined = 1;
while (offset !== undefined) {
  const page = await tools.read({ file_path: "README.md", offset, limit: 10 });
  pages.push(`offset=${page.offset} lines=${page.lines.length} truncated=${page.truncated} next=${page.next_offset ?? "-"}`);
  offset = page.next_offset;
}
return pages;
