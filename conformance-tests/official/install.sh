#!/usr/bin/env bash
# Installs the official MCP conformance harness, pinned, and the Node 22 it needs (it
# crashes on Node 20), both from the npm registry, into one cache folder outside the
# repository. Idempotent: a second run with everything present does nothing.
#
#   conformance-tests/official/install.sh [DIR]   (default: $MCPR_OFFICIAL_DIR or ${TMPDIR:-/tmp}/mcpr-official)
set -euo pipefail

DIR=${1:-${MCPR_OFFICIAL_DIR:-${TMPDIR:-/tmp}/mcpr-official}}
NPM_PKGS=(node@22 @modelcontextprotocol/conformance@0.2.0-alpha.12)

mkdir -p "$DIR"
cd "$DIR"
stamp="npm:${NPM_PKGS[*]}"
if [[ -f .installed && "$(cat .installed)" == "$stamp" && -x node_modules/.bin/node ]]; then
  echo "official conformance harness already installed in $DIR"
  exit 0
fi

command -v npm >/dev/null || { echo "official conformance: npm is not installed" >&2; exit 1; }
[[ -f package.json ]] || npm init -y >/dev/null
# node@22's install step fetches the matching node-<os>-<arch> package from the registry.
npm install --no-audit --no-fund --loglevel=error "${NPM_PKGS[@]}"

node22=node_modules/.bin/node
"$node22" --version | grep -q '^v22\.' || {
  echo "official conformance: $DIR/$node22 is not Node 22 ($("$node22" --version 2>&1))" >&2
  exit 1
}
[[ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]] || {
  echo "official conformance: the harness is missing from $DIR/node_modules" >&2
  exit 1
}
echo "$stamp" > .installed
echo "official conformance harness installed in $DIR ($("$node22" --version))"
