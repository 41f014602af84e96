const readme = await tools.read("README.md");
return readme.total_lines;
