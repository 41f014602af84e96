const r = await tools.read({ file_path: "package.json", limit: 2 });
const node: any = { path: r.path, children: [] };
node.children.push({ parent: node, name: "child" });
return node;
