#!/usr/bin/env bash
# What journaling a run costs, in interleaved rounds of cli/benches/journal.rs: each round
# measures the trivial program and WORKLOAD, plain and journaled on SQLite, back to back, so
# that the machine's drift falls on both sides. Per round it prints the ratio, the cost per
# sub-call net of the run's own cost ((sqlite - trivial sqlite) against (plain - trivial
# plain)) and the cost per run (trivial sqlite - trivial plain); then the medians.
#
#   cargo bench -p ptc-cli --bench journal --no-run
#   benches/journal_rounds.sh [ROUNDS] [WORKLOAD: look_1000 | read_200 | write_100 | edit_100 | effect_100]
set -euo pipefail
rounds=${1:-8}
workload=${2:-look_1000}
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$(ls -t "$root"/target/release/deps/journal-* | grep -v '\.d$' | head -1)
median_ms() {
  # criterion's median of one bench, in milliseconds.
  "$bench" --bench --warm-up-time 0.5 --measurement-time 1.5 "journal/$1\$" 2>&1 |
    sed -nE 's/.*time: +\[[^ ]+ [^ ]+ ([0-9.]+) ([a-zµ]+).*/\1 \2/p' |
    awk '{ print ($2 == "µs") ? $1 / 1000 : ($2 == "s" ? $1 * 1000 : $1) }'
}
for r in $(seq "$rounds"); do
  echo "$r $(median_ms trivial/plain) $(median_ms trivial/sqlite)" \
    "$(median_ms "$workload/plain") $(median_ms "$workload/sqlite")"
done | python3 -c '
import statistics, sys
ratios, per_call, per_run = [], [], []
for line in sys.stdin:
    r, tp, ts, wp, ws = line.split()
    tp, ts, wp, ws = map(float, (tp, ts, wp, ws))
    ratios.append(ws / wp)
    per_call.append(((ws - ts) - (wp - tp)) / (wp - tp))
    per_run.append(ts - tp)
    print(f"round {r}: plain {wp:.3f} ms, sqlite {ws:.3f} ms, ratio {ws / wp:.3f}, "
          f"per sub-call {100 * per_call[-1]:+.1f}%, per run {1000 * per_run[-1]:+.0f} us")
print(f"median: ratio {statistics.median(ratios):.3f}, per sub-call "
      f"{100 * statistics.median(per_call):+.1f}%, per run {1000 * statistics.median(per_run):+.0f} us")
'
