#!/usr/bin/env bash
# Sequential tools/call throughput of the mcpr runtime next to a minimal raw client
# (blocking pipes, no checks), measured in the same run against:
#   - the hostile server's `instant` mode (answers at once: the runtime's own ceiling),
#   - the rmcp reference server (`echo`),
#   - server-everything (`echo`), when the interop servers are installed.
#
#   conformance-tests/bench/run.sh [N]      (default N=5000 calls after 200 warm-up calls;
#                                            ROUNDS=9 rounds, raw and mcpr back to back in each)
# Set MCPR_INTEROP_DIR to where conformance-tests/interop/install.sh put the servers.
#
# This VM changes speed for seconds at a time, so one pair of runs can say anything. Each
# round runs the raw client and mcpr back to back; the overhead printed is the median over
# the rounds of each round's own ratio (both sides of a round see the same phase), next to
# the ratio of the best rounds. The client's CPU time per call (its own thread, kernel
# included; the median over the rounds) is what the runtime costs without the VM's wake-up
# latency.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-5000}
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --release -q -p mcpr-runtime --example callbench
cargo build --release -q -p mcpr-reference-server -p mcpr-hostile-server
bench="$target/release/examples/callbench"
interop=${MCPR_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpr-interop}

rounds=${ROUNDS:-9}
once() { # mode flag, then callbench arguments: "calls/s client-CPU-us-per-call" of one round
  "$bench" $1 --n "$n" --warmup 200 "${@:2}" |
    sed -n 's/.*"calls_per_sec":\([0-9.]*\).*"client_cpu_us":\([0-9.]*\).*/\1 \2/p'
}
run() { # name, then callbench arguments
  local name=$1; shift
  local rows="" r rc m mc
  for _ in $(seq "$rounds"); do
    read -r r rc <<<"$(once --raw "$@")"; read -r m mc <<<"$(once "" "$@")"
    rows+="$r $rc $m $mc"$'\n'
  done
  printf '%s' "$rows" | awk -v name="$name" '
    function median(a, k,   i, j, t) {
      for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    NF == 4 { k++; raw[k] = $1; rc[k] = $2; m[k] = $3; mc[k] = $4; ratio[k] = ($1 / $3 - 1) * 100
              if ($1 > braw) braw = $1; if ($3 > bm) bm = $3 }
    END {
      over = median(ratio, k); mraw = median(raw, k); mm = median(m, k); mrc = median(rc, k); mmc = median(mc, k)
      printf "%-26s raw %7.0f calls/s (%6.1f us)  mcpr %7.0f calls/s (%6.1f us)  overhead %+5.1f%% (best rounds %+5.1f%%)  client CPU/call raw %5.1f us, mcpr %5.1f us\n",
        name, mraw, 1e6 / mraw, mm, 1e6 / mm, over, (braw / bm - 1) * 100, mrc, mmc }'
}

echo "sequential tools/call, $n calls, $rounds rounds (medians), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "instant (hostile-server)" -- "$target/release/mcpr-hostile-server" instant
run "reference server (rmcp)" -- "$target/release/mcpr-reference-server"
everything="$interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [[ -f "$everything" ]]; then
  run "server-everything (node)" --args '{"message":"hi"}' -- node "$everything" stdio
else
  echo "server-everything: not installed (run conformance-tests/interop/install.sh)"
fi
