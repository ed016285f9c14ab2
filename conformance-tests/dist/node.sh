#!/usr/bin/env bash
# The npm package's library (mcpStart, mcpCall, mcpWaitNotification, mcpStop; docs/node.md)
# tested as users get it: both tarballs that scripts/dist.sh wrote to target/dist installed
# into a fresh npm project, then the repository's `node --test` suite (npm/mcpr/test) run
# there against the INSTALLED package — the tests import `mcpr` by name
# (MCPR_NODE_PACKAGE=mcpr) and MCPR_BINARY is unset, so the binary is the one of the
# platform package. The tests also need the reference server: MCPR_REFERENCE_SERVER, else
# target/debug/mcpr-reference-server (built here when missing).
# Usage: conformance-tests/dist/node.sh   (after scripts/dist.sh; MCPR_DIST=DIR reads the
# tarballs from DIR instead of target/dist)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
dist="${MCPR_DIST:-$root/target/dist}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcpr-node-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT

TYPESCRIPT_VERSION=5.9.3

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '== %s\n' "$*"; }

version=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="mcpr"))')
main_tgz="$dist/mcpr-$version.tgz"
platform_tgz="$dist/mcpr-linux-x64-gnu-$version.tgz"
for t in "$main_tgz" "$platform_tgz"; do
  [ -f "$t" ] || fail "no $(basename "$t") in $dist: run scripts/dist.sh first"
done

step "the tarball carries the library: entry points, declarations, lib/"
listing=$(tar -tzf "$main_tgz")
for f in index.js index.mjs index.d.ts index.d.mts lib/api.js lib/driver.js lib/binary.js bin/mcpr.js package.json; do
  grep -qx "package/$f" <<<"$listing" || fail "$(basename "$main_tgz") has no $f"
done
if grep -q '^package/test/' <<<"$listing"; then fail "the tarball ships the tests"; fi

step "the reference server"
reference="${MCPR_REFERENCE_SERVER:-$root/target/debug/mcpr-reference-server}"
if [ ! -x "$reference" ]; then
  cargo build -q -p mcpr-reference-server
  reference="$root/target/debug/mcpr-reference-server"
fi
[ -x "$reference" ] || fail "no reference server at $reference"

step "both tarballs into a fresh npm project"
project="$work/project"
mkdir -p "$project"
cd "$project"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$platform_tgz" "$main_tgz"
unset MCPR_BINARY
found=$(node -e 'console.log(require("mcpr/lib/binary.js").binaryPath())')
case "$found" in
  "$project"/node_modules/@mcpr/linux-x64-gnu/bin/mcpr) ;;
  *) fail "the installed package finds its binary at $found, not in the platform package" ;;
esac
"$found" driver --help >/dev/null || fail "the installed binary has no driver subcommand"

# The package needs no TypeScript; this project installs a compiler (pinned, from the npm
# registry) so that the test of the declarations compiles a use of each function against
# the installed package, through its `exports`. MCPR_NODE_TSC=0 leaves it out (the test
# then checks the declarations structurally only).
if [ "${MCPR_NODE_TSC:-1}" != 0 ]; then
  step "the TypeScript compiler for the declarations' test: typescript@$TYPESCRIPT_VERSION"
  npm install --no-audit --no-fund --silent --save-dev "typescript@$TYPESCRIPT_VERSION"
fi

step "node --test against the installed package (tests copied from npm/mcpr/test)"
cp -R "$root/npm/mcpr/test" "$project/test"
MCPR_NODE_PACKAGE=mcpr MCPR_REFERENCE_SERVER="$reference" MCPR_NODE_DOCS="$root/docs/node.md" \
  node --test "$project"/test/*.test.mjs "$project"/test/*.test.cjs
echo "the installed npm package passes its node --test suite"
