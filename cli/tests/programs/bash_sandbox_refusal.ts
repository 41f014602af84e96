const r = await tools.bash({
  command: "echo 'export PATH=$PATH:/opt/shop' >> /etc/profile.d/shop.sh",
  description: "Append to a system profile",
});
return { exit_code: r.exit_code, sandboxFlagged: typeof r.sandbox === "string", stderrMentionsDenied: /denied|read-only/i.test(r.stderr) };
