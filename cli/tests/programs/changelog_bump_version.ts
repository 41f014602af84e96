const next = "0.4.3";
const pkg = await tools.edit({
  file_path: "package.json",
  old_string: '"version": "0.4.2"',
  new_string: `"version": "${next}"`,
});
const log = await tools.edit({
  file_path: "CHANGELOG.md",
  old_string: "# Changelog\n\n",
  new_string: `# Changelog\n\n## ${next}\n- Reject negative quantities in \`Cart.add\`.\n\n`,
});
const head = await tools.bash({ command: "head -n 6 CHANGELOG.md && grep -n version package.json", description: "Show changelog head and version" });
return `package.json hunk at line ${pkg.hunks[0].line}, changelog hunk at line ${log.hunks[0].line}\n${head.stdout}`;
