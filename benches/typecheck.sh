#!/usr/bin/env bash
# The cost of the static type check per run: `ptc run --repeat 10` of a small, clean grep
# program over the builtin pack (its whole SDK is what the compiler reads), without the check,
# with `--typecheck error` (the check, then the run) and `--typecheck warn` (both at once),
# interleaved for ROUNDS rounds; prints the median per-run time of each and what the check adds
# (shaping, the files, one TypeScript 7 `tsc` process).
#
# usage: benches/typecheck.sh [ROUNDS]          (default 15; needs `npm ci` for TypeScript 7)
#        PROFILE=debug benches/typecheck.sh     (use a debug build instead of a release one)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-release}
if [ "$profile" = release ]; then
  cargo build --release --quiet -p ptc-cli --bin ptc
else
  cargo build --quiet -p ptc-cli --bin ptc
fi
ptc=$(realpath "${CARGO_TARGET_DIR:-target}/$profile/ptc")
export PTC_TSC="$PWD/node_modules/typescript7/bin/tsc"
rounds=${1:-15}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir "$root/src"
printf '// TODO: one\nlet a = 1;\n// TODO: two\n' >"$root/src/a.ts"
printf 'const r = await tools.grep({ pattern: "TODO", path: "src" });\nreturn r.matches.map((m) => `${m.path}:${m.line}`);\n' >"$root/p.ts"

per_run() { (cd "$root" && "$ptc" run --tools builtin --repeat 10 "$@" p.ts 2>&1 >/dev/null) | sed -n 's/.*per_run_ms=\([0-9.]*\).*/\1/p'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

off=() error=() warn=()
for _ in $(seq "$rounds"); do
  off+=("$(per_run)")
  error+=("$(per_run --typecheck error)")
  warn+=("$(per_run --typecheck warn)")
done
m_off=$(printf '%s\n' "${off[@]}" | median)
m_error=$(printf '%s\n' "${error[@]}" | median)
m_warn=$(printf '%s\n' "${warn[@]}" | median)
added() { awk -v a="$1" -v b="$m_off" 'BEGIN { printf "%.1f", a - b }'; }
printf 'per run (median of %s rounds of 10): off %.1f ms; error %.1f ms (+%s); warn %.1f ms (+%s)\n' \
  "$rounds" "$m_off" "$m_error" "$(added "$m_error")" "$m_warn" "$(added "$m_warn")"
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg))"
