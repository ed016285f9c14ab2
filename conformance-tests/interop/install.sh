#!/usr/bin/env bash
# Installs the pinned public MCP servers used by the interop tests into one npm folder
# and one Python venv (see shared docs, real-servers §10). Idempotent: a second run with
# everything present does nothing. (The official conformance harness has its own installer:
# conformance-tests/official/install.sh.)
#
#   conformance-tests/interop/install.sh [DIR]    (default: $MCPR_INTEROP_DIR or /tmp/mcpr-interop)
set -euo pipefail

DIR=${1:-${MCPR_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpr-interop}}
mkdir -p "$DIR"
cd "$DIR"

NPM_PKGS=(
  @modelcontextprotocol/server-everything@2026.8.31
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-memory@2026.8.31
  @modelcontextprotocol/server-sequential-thinking@2026.8.31
)
PIP_PKGS=(mcp==2.3.0 mcp-server-time==2026.10.19 mcp-server-git==2026.10.19)

stamp="npm:${NPM_PKGS[*]} pip:${PIP_PKGS[*]}"
if [[ -f .installed && "$(cat .installed)" == "$stamp" ]]; then
  echo "interop servers already installed in $DIR"
  exit 0
fi

command -v node >/dev/null || { echo "interop: node is not installed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "interop: python3 is not installed" >&2; exit 1; }

[[ -f package.json ]] || npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "${NPM_PKGS[@]}"

[[ -x venv/bin/python ]] || python3 -m venv venv
venv/bin/pip install -q --disable-pip-version-check "${PIP_PKGS[@]}"

echo "$stamp" > .installed
echo "interop servers installed in $DIR"
