#!/usr/bin/env bash
# Sequential tools/call throughput of the mcpr runtime next to a minimal raw client
# (blocking pipes, no checks), measured in the same run against:
#   - the hostile server's `instant` mode (answers at once: the runtime's own ceiling),
#   - the rmcp reference server (`echo`),
#   - server-everything (`echo`), when the interop servers are installed.
#
#   conformance-tests/bench/run.sh [N]      (default N=5000 calls after 200 warm-up calls;
#                                            ROUNDS=5 alternating rounds, best of each kept)
# Set MCPR_INTEROP_DIR to where conformance-tests/interop/install.sh put the servers.
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

rounds=${ROUNDS:-5}
once() { # mode flag, then callbench arguments: "calls/s client-CPU-us-per-call" of one round
  "$bench" $1 --n "$n" --warmup 200 "${@:2}" |
    sed -n 's/.*"calls_per_sec":\([0-9.]*\).*"client_cpu_us":\([0-9.]*\).*/\1 \2/p'
}
run() { # name, then callbench arguments
  # Raw and mcpr alternate, round after round, and each keeps its best round: this VM
  # changes speed for seconds at a time, so a single pair of runs can say anything.
  # The client's CPU time per call (its own thread, kernel included) is printed too: it
  # is what the runtime costs, without the VM's wake-up latency, and keeps its least.
  local name=$1; shift
  local raw=0 mcpr=0 rcpu=1e9 mcpu=1e9 r m
  for _ in $(seq "$rounds"); do
    read -r r rc <<<"$(once --raw "$@")"; read -r m mc <<<"$(once "" "$@")"
    raw=$(awk -v a="$raw" -v b="$r" 'BEGIN { print (b > a) ? b : a }')
    mcpr=$(awk -v a="$mcpr" -v b="$m" 'BEGIN { print (b > a) ? b : a }')
    rcpu=$(awk -v a="$rcpu" -v b="$rc" 'BEGIN { print (b < a) ? b : a }')
    mcpu=$(awk -v a="$mcpu" -v b="$mc" 'BEGIN { print (b < a) ? b : a }')
  done
  awk -v name="$name" -v raw="$raw" -v mcpr="$mcpr" -v rc="$rcpu" -v mc="$mcpu" 'BEGIN {
    printf "%-26s raw %7.0f calls/s (%6.1f us)  mcpr %7.0f calls/s (%6.1f us)  overhead %+5.1f%%  client CPU/call raw %5.1f us, mcpr %5.1f us\n",
      name, raw, 1e6/raw, mcpr, 1e6/mcpr, (raw/mcpr - 1) * 100, rc, mc }'
}

echo "sequential tools/call, $n calls, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "instant (hostile-server)" -- "$target/release/mcpr-hostile-server" instant
run "reference server (rmcp)" -- "$target/release/mcpr-reference-server"
everything="$interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [[ -f "$everything" ]]; then
  run "server-everything (node)" --args '{"message":"hi"}' -- node "$everything" stdio
else
  echo "server-everything: not installed (run conformance-tests/interop/install.sh)"
fi
