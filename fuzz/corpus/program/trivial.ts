return await tools.echo({ text: "hi" });
