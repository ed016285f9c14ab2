#!/usr/bin/env bash
# `mcpr run` per-call cost next to the raw client loop, measured in the same run against the
# reference server: a suite whose test makes N `echo` calls (each with an expectation), and a
# one-call test to subtract session start-up; the raw loop is callbench --raw (blocking pipes,
# no checks). Target: mcpr within 10 % of the raw loop. Both speak 2025-11-25 (`--protocol`):
# probed, the reference server gets 2026-07-28, whose envelope on every request makes each
# message larger than the raw loop's, so the two would not do the same work.
#
#   conformance-tests/bench/run-suite.sh [N]      (default 2000 calls)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-2000}
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --release -q -p mcpr -p mcpr-reference-server
cargo build --release -q -p mcpr-runtime --example callbench
server="$target/release/mcpr-reference-server"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  printf '{"version":1,"name":"%s calls","target":{"transport":"stdio","command":"%s"},"tests":[' "$n" "$server"
  printf '{"name":"one call","steps":[{"tool":{"name":"echo","arguments":{"text":"hi"}},"assert":{"status":"success"}}]},'
  printf '{"name":"many calls","steps":['
  for i in $(seq 1 "$n"); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"tool":{"name":"echo","arguments":{"text":"hi %s"}},"assert":{"status":"success"}}' "$i"
  done
  printf ']}]}\n'
} >"$work/suite.json"

best_mcpr=""
best_raw=""
for round in 1 2 3; do
  "$target/release/mcpr" run "$work/suite.json" --jobs 1 --no-history --protocol 2025-11-25 --json "$work/r.json" >/dev/null
  per_call=$(python3 - "$work/r.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
t = {x["name"]: x for x in r["suites"][0]["tests"]}
# Session start-up and the handshake are in both tests; their difference is n - 1 calls.
print((t["many calls"]["durationMs"] - t["one call"]["durationMs"]) / (n - 1) * 1000)
PY
)
  raw=$("$target/release/examples/callbench" --raw --n "$n" --warmup 0 -- "$server" \
    | sed -n 's/.*"calls_per_sec":\([0-9.]*\).*/\1/p')
  raw_us=$(awk -v r="$raw" 'BEGIN { printf "%.2f", 1e6 / r }')
  best_mcpr=$(awk -v a="$per_call" -v b="${best_mcpr:-1e18}" 'BEGIN { print (a < b) ? a : b }')
  best_raw=$(awk -v a="$raw_us" -v b="${best_raw:-1e18}" 'BEGIN { print (a < b) ? a : b }')
  printf 'round %s: mcpr run %7.1f us/call, raw loop %7.1f us/call\n' "$round" "$per_call" "$raw_us"
done
awk -v m="$best_mcpr" -v r="$best_raw" -v n="$n" 'BEGIN {
  printf "%s sequential calls, best of 3: mcpr run %.1f us/call, raw client loop %.1f us/call, ratio %.2f (target <= 1.10)\n",
    n, m, r, m / r }'
