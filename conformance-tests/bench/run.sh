#!/usr/bin/env bash
# Sequential tools/call throughput of the mcpr runtime next to a minimal raw client
# (blocking pipes, no checks), measured in the same run against:
#   - the hostile server's `instant` mode (answers at once: the runtime's own ceiling),
#   - the rmcp reference server (`echo`),
#   - server-everything (`echo`), when the interop servers are installed.
#
#   conformance-tests/bench/run.sh [N]      (default N=20000 calls per client and run, after
#                                            200 warm-up calls; ROUNDS=3 runs, BATCH=250)
# Set MCPR_INTEROP_DIR to where conformance-tests/interop/install.sh put the servers.
#
# This VM changes speed from one second to the next, so clients measured one after the
# other can differ by tens of percent for no reason of their own. Each run therefore
# drives both clients from one process, each with its own server, in alternating batches
# of BATCH calls (which one goes first alternates too): both see the same phases. Printed
# per server, the medians over the runs: calls/s of each, the overhead (mcpr's total time
# over the raw client's), the median over the batch pairs of each pair's ratio, and the
# client's CPU time per call (its own thread, kernel included), which is what the runtime
# costs without the wake-up latency of the VM.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-20000}
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --release -q -p mcpr-runtime --example callbench
cargo build --release -q -p mcpr-reference-server -p mcpr-hostile-server
bench="$target/release/examples/callbench"
interop=${MCPR_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpr-interop}

rounds=${ROUNDS:-3}
batch=${BATCH:-250}
run() { # name, then callbench arguments
  local name=$1; shift
  for _ in $(seq "$rounds"); do
    "$bench" --interleave "$batch" --n "$n" --warmup 200 "$@"
  done | python3 -c '
import json, statistics, sys
name = sys.argv[1]
runs = [json.loads(line) for line in sys.stdin if line.startswith("{")]
med = lambda k: statistics.median(r[k] for r in runs)
raw, mcpr = med("raw_calls_per_sec"), med("mcpr_calls_per_sec")
print("%-26s raw %7.0f calls/s (%6.1f us)  mcpr %7.0f calls/s (%6.1f us)  overhead %+5.1f%% (batch pairs %+5.1f%%)  client CPU/call raw %5.1f us, mcpr %5.1f us"
      % (name, raw, 1e6 / raw, mcpr, 1e6 / mcpr, med("overhead_pct"), med("median_batch_overhead_pct"), med("raw_cpu_us"), med("mcpr_cpu_us")))
' "$name"
}

echo "sequential tools/call, $n calls per client, $rounds runs of batches of $batch (medians), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "instant (hostile-server)" -- "$target/release/mcpr-hostile-server" instant
run "reference server (rmcp)" -- "$target/release/mcpr-reference-server"
everything="$interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [[ -f "$everything" ]]; then
  run "server-everything (node)" --args '{"message":"hi"}' -- node "$everything" stdio
else
  echo "server-everything: not installed (run conformance-tests/interop/install.sh)"
fi
