const r = await tools.bash({
  command: "grep -rn 'console.log' src; echo \"grep exit: $?\" >&2; exit 3",
  description: "Look for stray console.log calls",
});
return { exit_code: r.exit_code, stdout: r.stdout, stderr: r.stderr, truncated: r.truncated };
