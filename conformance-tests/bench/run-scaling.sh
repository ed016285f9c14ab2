#!/usr/bin/env bash
# Scheduler scaling of `mcpr run`: 64 independent tests, each a 500 ms `slow` call on the
# reference server (its own server process per test), timed at --jobs 1, 2, 4 and 8, with
# the speed-up over --jobs 1. Ideal: 64 × 0.5 / jobs seconds.
#
#   conformance-tests/bench/run-scaling.sh [TESTS] [MS]     (default 64 tests of 500 ms)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-64}
ms=${2:-500}
target=${CARGO_TARGET_DIR:-$root/target}
profile=${MCPR_PROFILE:-release}   # MCPR_PROFILE=debug to reuse a debug build
cd "$root"
if [ "$profile" = release ]; then
  cargo build --release -q -p mcpr -p mcpr-reference-server
else
  cargo build -q -p mcpr -p mcpr-reference-server
fi
server="$target/$profile/mcpr-reference-server"
suite=$(mktemp --suffix=.ir.json)
trap 'rm -f "$suite"' EXIT
{
  printf '{"version":1,"name":"%s waits","target":{"transport":"stdio","command":"%s"},"tests":[' "$n" "$server"
  for i in $(seq 1 "$n"); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"name":"wait %s","steps":[{"tool":{"name":"slow","arguments":{"ms":%s}}}]}' "$i" "$ms"
  done
  printf ']}\n'
} >"$suite"
base=""
for jobs in 1 2 4 8; do
  start=$(date +%s.%N)
  "$target/$profile/mcpr" run "$suite" --jobs "$jobs" >/dev/null
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc -l)
  [ -z "$base" ] && base=$secs
  ideal=$(echo "$n * $ms / 1000 / $jobs" | bc -l)
  printf 'jobs %s: %6.2f s (ideal %6.2f s), speed-up %.2f\n' "$jobs" "$secs" "$ideal" "$(echo "$base / $secs" | bc -l)"
done
