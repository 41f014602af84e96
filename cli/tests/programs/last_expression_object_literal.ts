const v = await tools.read({ file_path: "package.json", offset: 3, limit: 1 });
({ line: v.lines[0].number, version: v.lines[0].text.trim().replace(/^"version": "|",?$/g, "") })
