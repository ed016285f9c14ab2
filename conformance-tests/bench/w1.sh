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
# With MCPR_AUTOTEST=path/to/mcp-autotest (npm `mcp-autotest`, a runner that kills the
# server at once) it also runs W1 there, as one file of exact JSON-RPC exchanges whose
# handshake and `get-sum` answers are first taken from the server itself, and prints
# mcpr's one test / mcp-autotest.
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
# W1 for mcp-autotest: every exchange spelled out, the server's own answers to `initialize`
# and `get-sum` (and the notification it sends after `initialized`) asked of it first.
autotest_ms=""
if [ -n "${MCPR_AUTOTEST:-}" ]; then
  mkdir -p "$work/autotest"
  node -e '
    const { spawn } = require("child_process");
    const server = spawn("node", [process.argv[1]], { stdio: ["pipe", "pipe", "ignore"] });
    const send = (m) => server.stdin.write(JSON.stringify(m) + "\n");
    let buffer = "", seen = [];
    server.stdout.on("data", (chunk) => {
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, i); buffer = buffer.slice(i + 1);
        const msg = JSON.parse(line);
        if (msg.id === 0) {
          seen.push(line);
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 51, method: "tools/call", params: { name: "get-sum", arguments: { a: 2, b: 40 } } });
        } else if (msg.id === 51) {
          seen.push(line); console.log(seen.join("\n")); server.kill();
        } else if (msg.method) {
          seen.push(line);
        }
      }
    });
    send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "w1", version: "1" } } });
  ' "$everything" >"$work/answers.txt"
  [ "$(wc -l <"$work/answers.txt")" -eq 3 ] || { echo "w1.sh: server-everything did not answer as expected for mcp-autotest:" >&2; cat "$work/answers.txt" >&2; exit 1; }
  {
    printf 'case: initialize\nin: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"w1","version":"1"}}}\nout: %s\n' "$(sed -n 1p "$work/answers.txt")"
    printf -- '---\ncase: initialized\nin: {"jsonrpc":"2.0","method":"notifications/initialized"}\nout: %s\n' "$(sed -n 2p "$work/answers.txt")"
    for i in $(seq 1 50); do
      printf -- '---\ncase: echo %s\nin: {"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi %s"}}}\nout: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Echo: hi %s"}]}}\n' "$i" "$i" "$i" "$i" "$i"
    done
    printf -- '---\ncase: sum\nin: {"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":40}}}\nout: %s\n' "$(sed -n 3p "$work/answers.txt")"
  } >"$work/autotest/w1_test.yaml"
  for _ in $(seq 1 "$rounds"); do
    start=$(date +%s%N)
    "$MCPR_AUTOTEST" run "$work/autotest" -- node "$everything" >"$work/out.txt" 2>&1 \
      || { cat "$work/out.txt" >&2; echo "w1.sh: W1 did not pass under mcp-autotest" >&2; exit 1; }
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$autotest_ms" ] || [ "$ms" -lt "$autotest_ms" ]; then autotest_ms=$ms; fi
  done
fi

printf 'W1 against server-everything, best of %s, one job:\n' "$rounds"
printf '  one test            %6d ms\n' "$one"
printf '  51 tests            %6d ms\n' "$many"
printf '  51 tests, shared    %6d ms\n' "$shared"
printf '  kill at once        %6d ms\n' "$kill"
awk -v o="$one" -v m="$many" -v s="$shared" -v k="$kill" 'BEGIN {
  printf "ratio 51 tests / one test: %.2f\n", m / o
  printf "ratio 51 tests shared / one test: %.2f (goal <= 1.5)\n", s / o
  printf "ratio one test / kill at once: %.2f (goal <= 1.3)\n", o / k }'
if [ -n "$autotest_ms" ]; then
  printf '  mcp-autotest        %6d ms\n' "$autotest_ms"
  awk -v o="$one" -v a="$autotest_ms" 'BEGIN {
    printf "ratio one test / mcp-autotest: %.2f (goal <= 1.3)\n", o / a }'
fi
