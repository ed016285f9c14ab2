#!/usr/bin/env bash
# The run history's cost at start-up: one one-test run with an empty history, and the same
# run after 1,000 runs of a 200-test suite were recorded (the history keeps 50 runs a
# suite and at most 8 MiB, docs/run-report.md). Prints both, their ratio and the history's
# size; the goal is a ratio near 1 (a start that does not grow with the number of past runs).
#
#   conformance-tests/bench/history.sh [RUNS]     (default 1000)
#   MCPR_PROFILE=debug reuses a debug build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-1000}
target=${CARGO_TARGET_DIR:-$root/target}
profile=${MCPR_PROFILE:-release}
cd "$root"
if [ "$profile" = release ]; then
  cargo build --release -q -p mcpr -p mcpr-reference-server
else
  cargo build -q -p mcpr -p mcpr-reference-server
fi
mcpr="$target/$profile/mcpr"
server="$target/$profile/mcpr-reference-server"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'MCP Test 1\nSuite: "one"\nServer: %s\n\nTest: "ping"\n  Send "ping"\n' "$server" >one.mcpr

# 1,000 recorded runs of a 200-test suite, written as mcpr writes them (one line a run),
# then one real run so mcpr itself compacts the file.
python3 - "$runs" <<'PY'
import json, sys, time
runs = int(sys.argv[1])
now = int(time.time() * 1000)
with open("big-history.jsonl", "w") as f:
    for r in range(runs):
        tests = [{"id": f"test-{i}", "name": f"test {i}", "status": "passed", "durationMs": 12, "callsMs": [3, 4]} for i in range(200)]
        f.write(json.dumps({"version": 1, "suite": f"suite-{r % 20}.mcpr", "finishedAt": now + r, "tests": tests}) + "\n")
PY
before=$(stat -c %s big-history.jsonl)

best() {  # the best of five runs of `mcpr run one.mcpr` with history $1, in seconds
  local history=$1 b=""
  for _ in 1 2 3 4 5; do
    local s e t
    s=$(date +%s.%N)
    "$mcpr" run one.mcpr --no-progress --history "$history" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
rm -f empty.jsonl
cp big-history.jsonl compacted.jsonl
"$mcpr" run one.mcpr --no-progress --history compacted.jsonl >/dev/null
after=$(stat -c %s compacted.jsonl)
empty=$(best empty.jsonl)
full=$(best compacted.jsonl)
printf 'history of %s runs: %s bytes written, %s bytes kept after the first run\n' "$runs" "$before" "$after"
printf 'one-test run, empty history:     %.3f s\n' "$empty"
printf 'one-test run, %s-run history: %.3f s\n' "$runs" "$full"
printf 'ratio %.2f (goal: near 1; the history is capped at 50 runs a suite and 8 MiB)\n' "$(echo "$full / $empty" | bc -l)"
