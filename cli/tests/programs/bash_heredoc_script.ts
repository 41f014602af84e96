const r = await tools.bash({
  command: `cat > scripts/count.sh <<'SH'
#!/bin/sh
for f in "$@"; do printf '%s %s\\n' "$(grep -c . "$f")" "$f"; done
SH
chmod +x scripts/count.sh && ./scripts/count.sh src/*.ts | sort -rn | head -3`,
  description: "Create and run a counting script",
});
const created = await tools.read({ file_path: "scripts/count.sh" });
return { top3: r.stdout.trim().split("\n"), scriptLines: created.total_lines };
