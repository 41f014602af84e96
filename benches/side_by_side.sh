#!/usr/bin/env bash
# Run the same programs through `ptc run --repeat` and the Node worker-per-run baseline
# (../shared/bench/node-baseline.mjs) and print per-run times and ratios.
#
# usage: benches/side_by_side.sh [RUNS]      (default 200; the fan-out program runs RUNS/10 times)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
baseline=${BASELINE:-../shared/bench/node-baseline.mjs}
cargo build --release --quiet -p ptc-cli --bin ptc
ptc=${CARGO_TARGET_DIR:-target}/release/ptc

per_run() { sed -n 's/.*per_run_ms=\([0-9.]*\).*/\1/p'; }

printf '%-16s %6s %14s %14s %8s\n' program runs ptc_ms/run node_ms/run node/ptc
for program in trivial sequential_add fanout_sleep; do
  file=benches/programs/$program.js
  n=$runs
  [ "$program" = fanout_sleep ] && n=$(( runs / 10 > 0 ? runs / 10 : 1 ))
  ours=$("$ptc" run --tools testkit --repeat "$n" "$file" 2>&1 >/dev/null | per_run)
  theirs=$(node "$baseline" "$file" "$n" | tail -n 1 | per_run)
  ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.1fx", b / a }')
  printf '%-16s %6s %14s %14s %8s\n' "$program" "$n" "$ours" "$theirs" "$ratio"
done
echo "fan-out ideal: 100 calls / 10 parallel x 10 ms = 100 ms per run"
