#!/usr/bin/env bash
# MCP startup on the recorded catalog (testing/catalog: 42 servers, 870 tools), each served by
# cli/tests/mcp/catalog-server.mjs and slow to start by a delay spread evenly over
# DELAY_MIN..DELAY_MAX ms (default 300..1000, CATALOG_DELAY_MS), side by side:
#   single  each server alone (`ptc tools --no-mcp-cache`, one server), summed
#   cold    all 42, no cache yet (parallel, [mcp_start] parallel; the cache is written)
#   warm    all 42 from the cache (no server is started)
#   one     one server (the median delay) alone, started
#   serial  (with SERIAL=1) all 42 one at a time, as ptc started them before
# Medians of RUNS runs (default 3; the singles run once each), and the issue's ratios:
# cold/single-sum (target ≤ 0.6) and warm/one (target ≤ 3).
#
# usage: benches/mcp_startup.sh [RUNS]     (needs node and `npm ci` in the repository root)
#        PROFILE=debug benches/mcp_startup.sh    (a debug build instead of a release one)
#        PARALLEL=N       servers starting at once (default: ptc's, 8)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
profile=${PROFILE:-release}
min=${DELAY_MIN:-300}
max=${DELAY_MAX:-1000}
if [ "$profile" = release ]; then
  cargo build --release --quiet -p ptc-cli --bin ptc
else
  cargo build --quiet -p ptc-cli --bin ptc
fi
ptc=${CARGO_TARGET_DIR:-$PWD/target}/$profile/ptc
[ -d node_modules/@modelcontextprotocol/sdk ] || { echo "run npm ci first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root" "$work/conf" "$work/cache"
export XDG_CACHE_HOME=$work/cache

lists=(testing/catalog/lists/*.json)
n=${#lists[@]}
server() { # name list delay
  printf '[[mcp]]\nname = "%s"\ncommand = "node"\nargs = ["%s", "%s"]\nenv = { CATALOG_DELAY_MS = "%s" }\n\n' \
    "$1" "$PWD/cli/tests/mcp/catalog-server.mjs" "$PWD/$2" "$3"
}
head=""
[ -n "${PARALLEL:-}" ] && head=$(printf '[mcp_start]\nparallel = %s\n\n' "$PARALLEL")
printf '%s' "$head" > "$work/conf/all.toml"
printf '[mcp_start]\nparallel = 1\n\n' > "$work/conf/serial.toml"
for i in "${!lists[@]}"; do
  list=${lists[$i]}
  name=$(basename "$list" .json)
  delay=$(( min + (max - min) * i / (n - 1) ))
  server "$name" "$list" "$delay" >> "$work/conf/all.toml"
  server "$name" "$list" "$delay" >> "$work/conf/serial.toml"
  server "$name" "$list" "$delay" > "$work/conf/single-$i.toml"
done
mid=$(( n / 2 ))
server one "${lists[$mid]}" $(( (min + max) / 2 )) > "$work/conf/one.toml"

# Seconds `ptc tools` takes with configuration $1 and flags $2…
timed() {
  local config=$1; shift
  local start end
  start=$(date +%s.%N)
  "$ptc" tools --mode native --root "$work/root" --config "$config" "$@" > "$work/out" 2> "$work/err" \
    || { cat "$work/err" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}
median() { tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
repeat() { # runs, then the command; prints the median
  local k=$1; shift
  local times=""
  for _ in $(seq "$k"); do times="$times $("$@")"; done
  echo $times | median
}
clear_cache() { rm -rf "$work/cache/ptc"; }
cold_run() { clear_cache; timed "$work/conf/all.toml"; }

sum=0
for i in "${!lists[@]}"; do
  t=$(timed "$work/conf/single-$i.toml" --no-mcp-cache)
  sum=$(awk -v a="$sum" -v b="$t" 'BEGIN { printf "%.3f", a + b }')
done
cold=$(repeat "$runs" cold_run)
tools=$(wc -l < "$work/out")
warm=$(repeat "$runs" timed "$work/conf/all.toml")
one=$(repeat "$runs" timed "$work/conf/one.toml" --no-mcp-cache)

printf '%d servers, %d tools, delays %d..%d ms, %s build, medians of %d runs\n' "$n" "$tools" "$min" "$max" "$profile" "$runs"
printf '%-8s %9s\n' case seconds
printf '%-8s %9s\n' single "$sum" cold "$cold" warm "$warm" one "$one"
if [ -n "${SERIAL:-}" ]; then
  printf '%-8s %9s\n' serial "$(timed "$work/conf/serial.toml" --no-mcp-cache)"
fi
awk -v c="$cold" -v s="$sum" -v w="$warm" -v o="$one" \
  'BEGIN { printf "cold/single-sum %.2f (target <= 0.6)   warm/one %.2f (target <= 3)\n", c / s, w / o }'
