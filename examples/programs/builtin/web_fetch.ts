// Fetch a documentation page and summarise its headings: the outline, and how many
// sections each top-level heading has. The page here comes from a local server (e.g.
// `python3 -m http.server 8000` in a docs folder), which ptc.toml must allow:
// `[web] allow_hosts = ["127.0.0.1"]`.
const url = "http://127.0.0.1:8000/guide.html";
let page = await tools.web_fetch({ url });
let text = page.text;
while (page.truncated && page.next_offset !== undefined) {
  page = await tools.web_fetch({ url, offset: page.next_offset });
  text += page.text;
}
const headings: { level: number; title: string }[] = [];
let fenced = false;
for (const line of text.split("\n")) {
  if (line.startsWith("```")) fenced = !fenced; // a `#` in a code block is not a heading
  const m = !fenced && line.match(/^(#{1,6})\s+(.+?)\s*#*$/);
  if (m) headings.push({ level: m[1].length, title: m[2] });
}
const sections: Record<string, number> = {};
let current = "";
for (const h of headings) {
  if (h.level <= 2) current = h.title;
  else if (current) sections[current] = (sections[current] ?? 0) + 1;
}
for (const h of headings) console.log(`${"  ".repeat(h.level - 1)}- ${h.title}`);
return {
  final_url: page.final_url,
  status: page.status,
  headings: headings.length,
  sections,
};
