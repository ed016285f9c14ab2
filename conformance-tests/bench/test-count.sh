#!/usr/bin/env bash
# How `mcpr run` grows with the number of tests: a suite of N independent tests, each one
# `ping` against the reference server with shared sessions (--reuse-server), at N = 5,000
# and 20,000 (or the sizes given), timed (the median of 3 runs, wall and CPU time) and with
# the peak RSS of mcpr. Prints each size and, against the smallest, the cost per test in
# wall and in CPU time and the extra memory per test; the goals
# (issue: cost that grows with the work) are a per-test time ratio ≤ 1.15 and ≤ 4 KiB per
# test beyond the suite itself.
#
#   conformance-tests/bench/test-count.sh [SMALL] [LARGE]     (default 5000 20000)
#   MCPR_PROFILE=debug reuses a debug build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
small=${1:-5000}
large=${2:-20000}
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

suite() {  # an IR suite of $1 tests
  python3 - "$1" "$server" >"$work/s$1.ir.json" <<'PY'
import json, sys
n, server = int(sys.argv[1]), sys.argv[2]
tests = [{"name": f"ping {i}", "steps": [{"request": {"method": "ping"}}]} for i in range(n)]
print(json.dumps({"version": 1, "name": f"{n} pings", "target": {"transport": "stdio", "command": server}, "tests": tests}))
PY
}

measure() {  # prints "SECONDS CPU_SECONDS KIB" for a run of $1 tests: the median of 3 runs
  # (the best of 3 would favour the short run: its luckiest draw of the scheduler on 2 busy
  # cores is a larger share of it). CPU is mcpr's and the server's user + system time.
  local n=$1
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$mcpr" run "$work/s$n.ir.json" --reuse-server \
      --jobs 2 --no-progress --no-history -q >/dev/null 2>&1 || true
    read -r t u s m <"$work/time"
    echo "$t $(echo "$u + $s" | bc -l) $m"
  done | sort -n | sed -n 2p
}

suite "$small"
suite "$large"
read -r t1 c1 m1 < <(measure "$small")
read -r t2 c2 m2 < <(measure "$large")
printf '%6d tests: %7.2f s (CPU %.2f s), peak RSS %7d KiB\n' "$small" "$t1" "$c1" "$m1"
printf '%6d tests: %7.2f s (CPU %.2f s), peak RSS %7d KiB\n' "$large" "$t2" "$c2" "$m2"
ratio=$(echo "($t2 / $large) / ($t1 / $small)" | bc -l)
cpu=$(echo "($c2 / $large) / ($c1 / $small)" | bc -l)
per=$(echo "($m2 - $m1) / ($large - $small)" | bc -l)
printf 'time per test at %d over at %d: %.2f (goal ≤ 1.15); CPU time per test: %.2f\n' \
  "$large" "$small" "$ratio" "$cpu"
printf 'memory per extra test: %.1f KiB (goal ≤ 4 KiB)\n' "$per"
