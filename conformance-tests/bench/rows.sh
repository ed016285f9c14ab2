#!/usr/bin/env bash
# Data sources at scale: a CSV file and a SQLite table of N rows become N tests that run
# against the reference server in shared sessions (`Session: shared`), end to end. Each run
# must report every row passed, in the JSON report and the JUnit file; the script prints,
# for each source, the time and peak RSS at the small and the large size, the cost per test
# and the extra memory per test against the small size, beside the goals (time per test
# ratio <= 1.15, <= 4 KiB per test beyond the suite itself). The small size is timed as
# the median of 3 runs: a run of a few seconds moves with the scheduler's luck (one lucky
# run made a ratio of 1.20 where its neighbours gave 0.99-1.09), while the large run lasts
# twenty times longer and averages those draws out.
#
#   conformance-tests/bench/rows.sh [SMALL] [LARGE]     (default 5000 100000)
#   MCPR_BIN=path/to/mcpr uses that binary (the release archive's in .ci/run); otherwise a
#   release build (MCPR_PROFILE=debug reuses a debug build). The reference server is the
#   debug build's unless MCPR_SERVER names one.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
small=${1:-5000}
large=${2:-100000}
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
if [ -n "${MCPR_BIN:-}" ]; then
  mcpr=$MCPR_BIN
else
  profile=${MCPR_PROFILE:-release}
  if [ "$profile" = release ]; then
    cargo build --release -q -p mcpr
  else
    cargo build -q -p mcpr
  fi
  mcpr="$target/$profile/mcpr"
fi
server=${MCPR_SERVER:-$target/debug/mcpr-reference-server}
[ -x "$server" ] || cargo build -q -p mcpr-reference-server
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The rows (a, b, a + b) as a CSV file and a SQLite table, and a suite per source and size.
python3 - "$work" "$server" "$small" "$large" <<'PY'
import sqlite3, sys
work, server, sizes = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
for n in sizes:
    with open(f"{work}/rows{n}.csv", "w") as f:
        f.write("a,b,sum\n")
        f.writelines(f"{i},{i + 1},{2 * i + 1}\n" for i in range(n))
    db = sqlite3.connect(f"{work}/rows{n}.db")
    db.execute("create table adds (a integer, b integer, sum integer)")
    db.executemany("insert into adds values (?, ?, ?)", ((i, i + 1, 2 * i + 1) for i in range(n)))
    db.commit()
    db.close()
    sources = {
        "csv": f'  From CSV "rows{n}.csv"\n  Column "a" is number required\n'
               f'  Column "b" is number required\n  Column "sum" is number required\n',
        "sqlite": f'  provider: sql\n  file: rows{n}.db\n  query: "select a, b, sum from adds order by a"\n',
    }
    for kind, source in sources.items():
        with open(f"{work}/{kind}{n}.mcpr", "w") as f:
            f.write(f'MCP Test 1\nSuite: "{n} rows from {kind}"\nServer: {server}\nSession: shared\n\n'
                    f'Data source: "adds"\n{source}\n'
                    'Test: "Addition"\n  Id: addition\n  For each row from "adds"\n'
                    '  Call tool "add" with:\n    a: "${row.a}"\n    b: "${row.b}"\n'
                    '  Expect "structuredContent.sum" equals "${row.sum}"\n')
PY

# Runs the suite of $1 rows from source $2; prints "SECONDS KIB" and checks the reports.
measure_once() {
  local n=$1 kind=$2
  (cd "$work" && /usr/bin/time -f '%e %M' -o "$work/time" "$mcpr" run "$kind$n.mcpr" \
    --jobs 2 --max-rows "$n" --no-progress --no-history -q \
    --json "$work/report.json" --junit "$work/junit.xml" >"$work/out" 2>&1) || {
    echo "the run of $n rows from $kind failed:" >&2
    tail -20 "$work/out" >&2
    exit 1
  }
  python3 - "$work/report.json" "$work/junit.xml" "$n" <<'PY'
import json, sys, xml.etree.ElementTree as ET
report, junit, n = json.load(open(sys.argv[1])), ET.parse(sys.argv[2]).getroot(), int(sys.argv[3])
tests = report["suites"][0]["tests"]
passed = sum(t["status"] == "passed" for t in tests)
assert report["status"] == "passed" and passed == n == len(tests), (report["status"], passed, len(tests))
assert all(t.get("session") for t in tests), "every row shares a session"
cases = junit.iter("testcase")
assert sum(1 for _ in cases) == n and junit.get("failures") == "0" and junit.get("errors") == "0"
PY
  cat "$work/time"
}

# The median of $3 runs of measure_once (by time; the memory of the same run). A failed
# run prints nothing here, so the caller reads no numbers and fails.
measure() {
  local runs=$3 lines=()
  for ((i = 0; i < runs; i++)); do lines+=("$(measure_once "$1" "$2")") || return 1; done
  printf '%s\n' "${lines[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

status=0
for kind in csv sqlite; do
  read -r t0 m0 < <(measure "$small" "$kind" 3)
  read -r t1 m1 < <(measure "$large" "$kind" 1)
  python3 - "$kind" "$small" "$large" "$t0" "$m0" "$t1" "$m1" <<'PY' || status=1
import sys
kind, n0, n1, t0, m0, t1, m1 = sys.argv[1], *map(float, sys.argv[2:])
ratio = (t1 / n1) / (t0 / n0)
kib = (m1 - m0) / (n1 - n0)
print(f"{kind}: {n0:.0f} rows {t0:.2f} s {m0 / 1024:.0f} MiB; {n1:.0f} rows {t1:.2f} s {m1 / 1024:.0f} MiB; "
      f"all passed in both reports")
print(f"{kind}: time per test {ratio:.2f}x the small run (goal <= 1.15), "
      f"{kib:.2f} KiB per further test (goal <= 4)")
PY
done
exit $status
