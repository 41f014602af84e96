// The model resolves TODOs page by page: it takes the first page of matches, marks those lines
// done, then asks for the next page with offset.
await tools.bash({ description: "Make a long task list", command: "seq -f 'TODO task %g' 1 10500 > tasks.txt" });
const first = await tools.grep({ pattern: "^TODO", path: "tasks.txt" });
await tools.bash({ description: "Mark the first page done", command: `sed -i '1,${first.matches.length}s/^TODO/DONE/' tasks.txt` });
const next = await tools.grep({ pattern: "^TODO", path: "tasks.txt", offset: first.matches.length });
return { firstPage: first.matches.length, total: first.total, nextPage: next.matches.length, left: next.total };
