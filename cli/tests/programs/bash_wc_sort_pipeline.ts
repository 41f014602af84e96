const r = await tools.bash({
  command: "find src -name '*.ts' -print0 | xargs -0 wc -l | sort -n",
  description: "Count lines in source files",
});
console.log(`exit ${r.exit_code}`);
return r.stdout;
