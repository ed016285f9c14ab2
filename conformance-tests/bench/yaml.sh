#!/usr/bin/env bash
# YAML suites at scale: one generated suite (settings, a flow, tests with a tool call and its
# arguments, expectations, a save, a resource read and a wait) at three sizes, checked as
# `.mcpr` and as the YAML `mcpr convert` writes of it (about 1, 5 and 20 MB of YAML). Prints
# for each size the check time (best of 3) and peak RSS of both, the YAML speed against the
# `.mcpr` speed in MB/s (goal >= 0.5), YAML's MiB of peak RSS per MB in all and per further
# MB over the smallest size (goal <= 10; a small file's figure is mostly what any check
# holds), and how time per MB grows from the smallest to the largest size for `check` of
# YAML and for `convert` (1.0 is linear).
#
#   conformance-tests/bench/yaml.sh        MCPR_BIN=path/to/mcpr, else a release build
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
if [ -n "${MCPR_BIN:-}" ]; then
  mcpr=$MCPR_BIN
else
  cargo build --release -q -p mcpr
  mcpr="$target/release/mcpr"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The .mcpr suites: whole tests until the text reaches the size (its YAML is ~2.6x larger).
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
head = ('MCP Test 1\nSuite: "Generated"\nServer: node dist/server.js --port 3000\n'
        'Default timeout: 10 seconds\n\nFlow: "Verify addition"\n  Inputs: a, b=1, expected\n'
        '  Call tool "add" with:\n    a: "${a}"\n    b: "${b}"\n'
        '  Expect "structuredContent.sum" equals "${expected}"\n\n')
for name, size in (("s1", 385_000), ("s5", 1_930_000), ("s20", 7_720_000)):
    out, n, i = [head], len(head), 0
    while n < size:
        t = (f'Test: "Case {i}: create and read back"\n  Id: case-{i}\n  Require: tools\n'
             f'  Call tool "create_customer" with:\n    name: "Customer {i}"\n    tier: gold\n'
             f'    tags: [a, b, c]\n  Expect it succeeds\n'
             f'  Expect "structuredContent.id" matches "^C-[0-9]+$"\n'
             f'  Save "structuredContent.id" as "id"\n  Read resource "customer://${{id}}"\n'
             f'  Expect "contents[0].text" contains "Customer {i}"\n'
             f'  Use flow "Verify addition" with:\n    a: {i}\n    expected: {i + 1}\n'
             f'  Wait up to 2 seconds\n\n')
        out.append(t); n += len(t); i += 1
    open(f"{work}/{name}.mcpr", "w").write("".join(out))
PY

# Wall time to the nanosecond: `time`'s hundredths read 0.00 s for a check of 1 MB.
best() {  # best "SECONDS KIB" of 3 runs of the command
  local b="" m="" start end t k
  for _ in 1 2 3; do
    start=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
      cat "$work/err" >&2
      exit 1
    }
    end=$(date +%s%N)
    t=$(echo "($end - $start) / 1000000000" | bc -l)
    read -r k <"$work/time"
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; m=$k; fi
  done
  echo "$b $m"
}

rows=()
for s in s1 s5 s20; do
  read -r ct _ < <(best "$mcpr" convert --max-file-size 100MiB "$work/$s.mcpr" --to yaml -o "$work/$s.yaml")
  read -r mt mk < <(best "$mcpr" check --max-file-size 100MiB "$work/$s.mcpr")
  read -r yt yk < <(best "$mcpr" check --max-file-size 100MiB "$work/$s.yaml")
  rows+=("$s $(stat -c %s "$work/$s.mcpr") $(stat -c %s "$work/$s.yaml") $mt $mk $yt $yk $ct")
done
printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = [l.split() for l in sys.stdin]
per_mb = []
sizes = []
for name, mb_m, mb_y, mt, mk, yt, yk, ct in rows:
    mb_m, mb_y = int(mb_m) / 1e6, int(mb_y) / 1e6
    mt, mk, yt, yk, ct = map(float, (mt, mk, yt, yk, ct))
    speed = (mb_y / yt) / (mb_m / mt)
    print(f"{mb_y:5.1f} MB YAML: check {yt:.3f} s ({mb_y / yt:.1f} MB/s), {yk / 1024 / mb_y:.1f} MiB per MB "
          f"(goal <= 10); same suite as .mcpr {mb_m:.1f} MB: {mt:.3f} s ({mb_m / mt:.1f} MB/s); "
          f"YAML / .mcpr speed {speed:.2f} (goal >= 0.5); convert {ct:.2f} s")
    per_mb.append((yt / mb_y, ct / mb_m))
    sizes.append((mb_y, yk / 1024))
# What any check holds whatever its size (the binary, the compiled schema) weighs on a small
# file; the growth from the smallest size is what the suite itself costs.
(mb0, rss0) = sizes[0]
for mb, rss in sizes[1:]:
    print(f"YAML {mb:.1f} MB: {(rss - rss0) / (mb - mb0):.1f} MiB per further MB over {mb0:.1f} MB (goal <= 10)")
print(f"YAML check: s/MB at the largest / s/MB at the smallest = {per_mb[-1][0] / per_mb[0][0]:.2f} (1.0 is linear)")
print(f"convert: s/MB at the largest / s/MB at the smallest = {per_mb[-1][1] / per_mb[0][1]:.2f} (1.0 is linear)")
'
