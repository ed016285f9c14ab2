#!/usr/bin/env bash
# Grades mcpr as an MCP client with the official conformance harness
# (@modelcontextprotocol/conformance, pinned in install.sh).
#
# Every client scenario the installed harness lists is run through the adapter
# runtime/examples/conformance_client.rs, once for each protocol revision it applies to
# (2025-11-25: the initialize handshake; 2026-07-28: stateless); extension scenarios are
# not on the spec timeline and run under both revisions (--force). A scenario passes when
# the harness exits 0 and none of its checks is a FAILURE.
#
# Every scenario must pass, unless expected-failures.txt lists it with a reason; an
# expected failure that passes is an error too (the list must stay true). The auth/*
# scenarios are graded like the others: the adapter gives the target the OAuth client of
# `mcpr run` (runtime/src/auth/, docs/oauth.md) with the settings a user would give.
#
#   conformance-tests/official/run.sh [SCENARIO…]
#
# Environment: MCPR_OFFICIAL_DIR (install folder, default ${TMPDIR:-/tmp}/mcpr-official),
# MCPR_OFFICIAL_RESULTS (where checks.json etc. go, default $MCPR_OFFICIAL_DIR/results),
# MCPR_OFFICIAL_VERSIONS (default "2025-11-25 2026-07-28"), MCPR_OFFICIAL_SKIP_AUTH=1,
# MCPR_OFFICIAL_ADAPTER (a client command to grade instead of the freshly built adapter).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export MCPR_OFFICIAL_DIR=${MCPR_OFFICIAL_DIR:-${TMPDIR:-/tmp}/mcpr-official}
results=${MCPR_OFFICIAL_RESULTS:-$MCPR_OFFICIAL_DIR/results}
read -r -a versions <<< "${MCPR_OFFICIAL_VERSIONS:-2025-11-25 2026-07-28}"

"$here/install.sh" "$MCPR_OFFICIAL_DIR"
node="$MCPR_OFFICIAL_DIR/node_modules/.bin/node"
harness="$MCPR_OFFICIAL_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [[ -n "${MCPR_OFFICIAL_ADAPTER:-}" ]]; then
  adapter=$MCPR_OFFICIAL_ADAPTER
else
  echo "building the adapter (runtime/examples/conformance_client.rs)"
  # --workspace keeps feature resolution identical to the workspace build (no rebuild).
  (cd "$root" && cargo build -q --workspace --example conformance_client)
  adapter="${CARGO_TARGET_DIR:-$root/target}/debug/examples/conformance_client"
fi
[[ -x "$adapter" ]] || { echo "official: adapter not found at $adapter" >&2; exit 1; }

# Expected failures: "<version> <scenario> <reason…>"; a line without a reason is refused.
declare -A expected=()
while read -r v s reason; do
  [[ -z "$v" || "$v" == \#* ]] && continue
  if [[ -z "$reason" ]]; then
    echo "official: expected-failures.txt: '$v $s' has no reason" >&2
    exit 1
  fi
  expected["$v $s"]=$reason
done < "$here/expected-failures.txt"

# The client scenarios and the revisions they apply to, from the harness itself.
list=$("$node" "$harness" list)
declare -A tags=()
names=()
in_client=0
while IFS= read -r line; do
  case "$line" in
    "Client scenarios"*) in_client=1; continue ;;
    *"scenarios"*":") in_client=0; continue ;;
  esac
  if (( in_client )) && [[ "$line" =~ ^[[:space:]]*-[[:space:]]+([^[:space:]]+)[[:space:]]+\[(.*)\]$ ]]; then
    names+=("${BASH_REMATCH[1]}")
    tags["${BASH_REMATCH[1]}"]=${BASH_REMATCH[2]}
  fi
done <<< "$list"
if (( ${#names[@]} == 0 )); then
  echo "official: the harness listed no client scenarios:" >&2
  echo "$list" >&2
  exit 1
fi
for key in "${!expected[@]}"; do
  v=${key%% *}
  s=${key#* }
  if [[ -z "${tags[$s]:-}" || " ${versions[*]} " != *" $v "* ]]; then
    echo "official: expected-failures.txt names '$key', which is not a client scenario run under a revision here" >&2
    exit 1
  fi
done
if (( $# > 0 )); then
  for s in "$@"; do
    [[ -n "${tags[$s]:-}" ]] || { echo "official: unknown client scenario $s" >&2; exit 2; }
  done
  names=("$@")
fi

rm -rf "$results"
mkdir -p "$results"

# Runs one scenario under one revision; prints "STATUS passed/total detail".
run_one() {
  local scenario=$1 version=$2 force=$3 out="$results/$version"
  local log="$out/${scenario//\//_}.log"
  mkdir -p "$out"
  local rc=0
  NO_COLOR=1 timeout --kill-after=10 180 "$node" "$harness" client \
    --command "$adapter" --scenario "$scenario" --spec-version "$version" $force \
    --timeout 30000 -o "$out" > "$log" 2>&1 || rc=$?
  local checks
  # The newest result folder of the scenario (a retry leaves two; names end in a timestamp).
  checks=$(ls -d "$out/$scenario"-*/checks.json 2>/dev/null | sort | tail -n1 || true)
  if [[ -z "$checks" ]]; then
    if (( rc == 124 || rc == 137 )); then
      echo "FAIL 0/0 the harness did not finish within 180 s"
    else
      echo "FAIL 0/0 the harness wrote no checks (exit $rc)"
    fi
    return
  fi
  "$node" -e '
    const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    // INFO entries are the harness log of the exchange, not checks.
    const graded = checks.filter(c => c.status !== "INFO");
    const count = s => graded.filter(c => c.status === s).length;
    const failed = graded.filter(c => c.status === "FAILURE");
    const rc = Number(process.argv[2]);
    const ok = failed.length === 0 && rc === 0 && graded.length > 0;
    const notes = [];
    if (count("WARNING")) notes.push(`${count("WARNING")} warning(s)`);
    if (count("SKIPPED")) notes.push(`${count("SKIPPED")} skipped`);
    let detail = failed.map(c => `${c.name}: ${c.errorMessage ?? c.description}`).join("; ");
    if (!ok && failed.length === 0) detail = graded.length ? `harness exit ${rc}` : "no checks";
    if (notes.length) detail = notes.join(", ") + (detail ? "; " + detail : "");
    console.log(`${ok ? "PASS" : "FAIL"} ${count("SUCCESS")}/${graded.length} ${detail}`);
  ' "$checks" "$rc"
}

declare -A cell=()
failures=()
passed=0
failed=0
xfailed=0
auth_pass=0
auth_fail=0
for scenario in "${names[@]}"; do
  tag=${tags[$scenario]}
  is_auth=0
  [[ "$scenario" == auth/* ]] && is_auth=1
  if (( is_auth )) && [[ "${MCPR_OFFICIAL_SKIP_AUTH:-}" == 1 ]]; then
    continue
  fi
  for version in "${versions[@]}"; do
    force=""
    if [[ "$tag" == extension ]]; then
      force="--force"
    elif [[ ",$tag," != *",$version,"* ]]; then
      cell["$scenario $version"]="n/a"
      continue
    fi
    result=$(run_one "$scenario" "$version" "$force")
    retried=""
    if [[ "$result" == FAIL* ]] && [[ -z "${expected["$version $scenario"]:-}" ]]; then
      # One more attempt, shown in the table: some scenarios grade timing (sse-retry wants
      # the reconnection within the announced retry delay), which a loaded machine can miss.
      echo "official: $version $scenario failed; trying once more" >&2
      result=$(run_one "$scenario" "$version" "$force")
      retried=" (2nd try)"
    fi
    status=${result%% *}
    rest=${result#* }
    counts=${rest%% *}
    detail=${rest#"$counts"}
    detail=${detail# }
    if (( is_auth )); then
      if [[ "$status" == PASS ]]; then auth_pass=$((auth_pass + 1)); else auth_fail=$((auth_fail + 1)); fi
    fi
    reason=${expected["$version $scenario"]:-}
    if [[ "$status" == PASS && -n "$reason" ]]; then
      cell["$scenario $version"]="XPASS $counts"
      failures+=("$version $scenario: listed in expected-failures.txt but passed; remove the entry")
      failed=$((failed + 1))
    elif [[ "$status" == PASS ]]; then
      cell["$scenario $version"]="PASS $counts${detail:+ ($detail)}$retried"
      passed=$((passed + 1))
    elif [[ -n "$reason" ]]; then
      cell["$scenario $version"]="XFAIL $counts"
      xfailed=$((xfailed + 1))
    else
      cell["$scenario $version"]="FAIL $counts"
      failures+=("$version $scenario: $detail (log: $results/$version/${scenario//\//_}.log)")
      failed=$((failed + 1))
    fi
  done
done

echo
printf '%-40s' "client scenario"
for version in "${versions[@]}"; do printf ' | %-34s' "$version"; done
echo
printf '%-40s' "----------------------------------------"
for version in "${versions[@]}"; do printf ' | %-34s' "----------------------------------"; done
echo
for scenario in "${names[@]}"; do
  printf '%-40s' "$scenario"
  for version in "${versions[@]}"; do
    printf ' | %-34s' "${cell["$scenario $version"]:--}"
  done
  echo
done
echo
echo "n/a: the scenario is not part of that revision (the harness would skip it); PASS k/n: k of"
echo "its n graded checks succeeded, none failed (skipped checks are paths the scenario offers"
echo "but does not require)"
echo
if (( auth_pass + auth_fail > 0 )); then
  echo "of which auth/* (the OAuth client flows): $auth_pass passed, $auth_fail failed or expected to fail"
fi
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "results: $results"
echo "expected failures (expected-failures.txt): $xfailed"
echo "official: $passed passed, $failed failed"
(( failed == 0 ))
