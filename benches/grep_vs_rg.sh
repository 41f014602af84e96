#!/usr/bin/env bash
# The builtin pack's `grep` against `rg` on the same generated tree, side by side.
#
# Generates FILES files (default 20,000, about 10 KB each: ~200 MB) of pseudo-random
# text under a temporary directory, then times, RUNS times each (default 7, after one
# warm-up run each, so both read from the page cache):
#   ptc: ptc run --tools builtin --root TREE <program calling tools.grep once>
#   rg:  rg -n PATTERN (in TREE, output to a file: rg stops at the first match when
#        its output is /dev/null)
# and prints the median wall times and their ratio. ptc's time includes starting the
# process and a QuickJS runtime; its grep counts every matching line (the true total)
# and keeps the first 250 in path order, while rg prints every match.
#
# usage: benches/grep_vs_rg.sh [FILES] [RUNS]        (needs rg: apt-get install ripgrep)
#   PATTERN=REGEX   search for REGEX instead of 'needle_[0-9]+' (rare matches)
#   TREE=DIR        use DIR as the tree: generated there when missing, kept afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-20000}
runs=${2:-7}
pattern=${PATTERN:-'needle_[0-9]+'}
command -v rg >/dev/null || { echo "rg not found: apt-get install -y ripgrep" >&2; exit 1; }
cargo build --release --quiet -p ptc-cli --bin ptc
ptc=$PWD/target/release/ptc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=${TREE:-$work/tree}
if [ -d "$tree" ]; then
  echo "using the existing tree $tree" >&2
else
  mkdir -p "$tree"

# 100 files per directory, ~160 lines of ~64 bytes per file; one line in ~2,000 holds a needle.
awk -v files="$files" -v root="$tree" 'BEGIN {
  srand(42);
  split("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega", w, " ");
  for (f = 0; f < files; f++) {
    dir = sprintf("%s/d%03d", root, int(f / 100));
    if (f % 100 == 0) system("mkdir -p " dir);
    path = sprintf("%s/f%05d.txt", dir, f);
    for (l = 0; l < 160; l++) {
      line = "";
      for (k = 0; k < 10; k++) line = line w[int(rand() * 24) + 1] " ";
      if (rand() < 0.0005) line = line "needle_" int(rand() * 1000);
      print line >> path;
    }
    close(path);
  }
}'
fi
tree=$(cd "$tree" && pwd)
size=$(du -sm "$tree" | cut -f1)
count=$(find "$tree" -type f | wc -l)

program=$work/grep.js
printf 'const r = await tools.grep({ pattern: %s });\nreturn { total: r.total, files: r.files, shown: r.matches.length };\n' \
  "$(printf '%s' "$pattern" | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&"/')" > "$program"

now_ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

run_ptc() { "$ptc" run --tools builtin --root "$tree" "$program" > "$work/ptc.out"; }
run_rg() { (cd "$tree" && rg -n "$pattern" > "$work/rg.out"); }

run_ptc; run_rg   # warm the page cache
ptc_times=(); rg_times=()
for _ in $(seq "$runs"); do
  t0=$(now_ms); run_ptc; t1=$(now_ms); run_rg; t2=$(now_ms)
  ptc_times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  rg_times+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
done
ptc_ms=$(printf '%s\n' "${ptc_times[@]}" | median)
rg_ms=$(printf '%s\n' "${rg_times[@]}" | median)

echo "tree: $count files, ${size} MB; pattern: $pattern; $(nproc) cores; $runs runs each"
echo "ptc result: $(tr -d ' \n' < "$work/ptc.out")"
echo "rg matches: $(wc -l < "$work/rg.out") lines"
printf '%-5s %12s   %s\n' tool median_ms "runs (ms)"
printf '%-5s %12s   %s\n' ptc "$ptc_ms" "${ptc_times[*]}"
printf '%-5s %12s   %s\n' rg "$rg_ms" "${rg_times[*]}"
awk -v a="$ptc_ms" -v b="$rg_ms" 'BEGIN { printf "ratio ptc/rg: %.2fx (target: within 1.5x)\n", a / b }'
