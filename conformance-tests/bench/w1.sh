#!/usr/bin/env bash
# The W1 workload against server-everything over stdio: 50 `echo` calls with exact-text
# checks and one `get-sum`. Measured in the same run, best of ROUNDS (wall time of `mcpr run`,
# one job so every variant holds one server at a time):
#
#   one test            W1 as one test (mcpr's default shutdown grace)
#   51 tests            W1 as 51 one-call tests, a session each
#   51 tests, shared    the same with --reuse-server (one session for all)
#   kill at once        W1 as one test with --shutdown-grace 0: the server is ended as soon as
#                       its stdin is closed, the baseline of a runner that kills at once
#
# and prints the ratios the session-costs issue sets goals for: 51 tests shared / one test
# (goal <= 1.5) and one test / kill at once (the shutdown's cost; goal <= 1.3).
#
#   conformance-tests/bench/w1.sh          (needs conformance-tests/interop/install.sh first)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${ROUNDS:-3}
interop=${MCPR_INTEROP_DIR:-/tmp/mcpr-interop}
everything="$interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$everything" ] || { echo "w1.sh: server-everything is not installed in $interop (run conformance-tests/interop/install.sh)" >&2; exit 2; }
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --release -q -p mcpr
mcpr="$target/release/mcpr"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

header() {
  printf 'MCP Test 1\nSuite: "W1"\nServer: node %s stdio\nDefault timeout: 20 seconds\n\n' "$everything"
}
echo_call() {
  printf '  Call tool "echo" with:\n    message: "hi %s"\n  Expect "content[0].text" equals "Echo: hi %s"\n' "$1" "$1"
}
sum_call() {
  printf '  Call tool "get-sum" with:\n    a: 2\n    b: 40\n  Expect "content[0].text" contains "42"\n'
}
{
  header
  printf 'Test: "W1"\n'
  for i in $(seq 1 50); do echo_call "$i"; done
  sum_call
} >"$work/one.mcpr"
{
  header
  for i in $(seq 1 50); do printf 'Test: "echo %s"\n' "$i"; echo_call "$i"; printf '\n'; done
  printf 'Test: "sum"\n'
  sum_call
} >"$work/many.mcpr"

# Best wall time in ms of `mcpr run FILE ARGS…` over the rounds; every run must pass.
best() {
  local file=$1 best="" start end ms
  shift
  for _ in $(seq 1 "$rounds"); do
    start=$(date +%s%N)
    "$mcpr" run "$file" --jobs 1 --no-history --no-progress "$@" >"$work/out.txt" 2>&1 \
      || { cat "$work/out.txt" >&2; echo "w1.sh: the run of $file $* did not pass" >&2; exit 1; }
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

one=$(best "$work/one.mcpr")
many=$(best "$work/many.mcpr")
shared=$(best "$work/many.mcpr" --reuse-server)
kill=$(best "$work/one.mcpr" --shutdown-grace 0)
printf 'W1 against server-everything, best of %s, one job:\n' "$rounds"
printf '  one test            %6d ms\n' "$one"
printf '  51 tests            %6d ms\n' "$many"
printf '  51 tests, shared    %6d ms\n' "$shared"
printf '  kill at once        %6d ms\n' "$kill"
awk -v o="$one" -v m="$many" -v s="$shared" -v k="$kill" 'BEGIN {
  printf "ratio 51 tests / one test: %.2f\n", m / o
  printf "ratio 51 tests shared / one test: %.2f (goal <= 1.5)\n", s / o
  printf "ratio one test / kill at once: %.2f (goal <= 1.3)\n", o / k }'
