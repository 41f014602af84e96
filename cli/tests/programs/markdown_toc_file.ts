const docs = ["README.md", "docs/architecture.md", "CHANGELOG.md"];
const sections = await Promise.all(
  docs.map(async (file) => {
    const { matches } = await tools.grep({ pattern: "^#{1,3} ", path: file });
    return matches.map((m) => {
      const level = m.text.match(/^#+/)![0].length;
      return `${"  ".repeat(level - 1)}- ${m.text.replace(/^#+ /, "")} (${file}:${m.line})`;
    });
  }),
);
const toc = ["# Table of contents", "", ...sections.flat()].join("\n") + "\n";
const w = await tools.write({ file_path: "docs/TOC.md", content: toc });
console.log(toc);
return `${w.lines} lines written`;
