#!/usr/bin/env bash
# Bytes a model is sent for the same tools natively and in code mode (`run_code`, whose
# description carries the guidance and the SDK): the tool lists `ptc tools --format openai`
# prints (exactly what `ptc serve` lists), as compact JSON, and their ratio.
#
# usage: benches/sdk_size.sh [PACKS...]        (default: builtin testkit)
#        PROFILE=debug benches/sdk_size.sh     (use a debug build instead of a release one)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-release}
if [ "$profile" = release ]; then
  cargo build --release --quiet -p ptc-cli --bin ptc
else
  cargo build --quiet -p ptc-cli --bin ptc
fi
ptc=${CARGO_TARGET_DIR:-target}/$profile/ptc
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
[ $# -gt 0 ] || set -- builtin testkit

bytes() { "$ptc" tools --root "$root" --tools "$1" --mode "$2" --format openai | jq -cj . | wc -c; }

printf '%-10s %13s %11s %12s\n' tools native_bytes code_bytes code/native
for packs in "$@"; do
  native=$(bytes "$packs" native)
  code=$(bytes "$packs" code)
  ratio=$(awk -v c="$code" -v n="$native" 'BEGIN { printf "%.2fx", c / n }')
  printf '%-10s %13s %11s %12s\n' "$packs" "$native" "$code" "$ratio"
done
