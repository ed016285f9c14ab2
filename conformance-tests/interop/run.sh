#!/usr/bin/env bash
# Interop checks of the mcpr runtime against pinned public MCP servers (npm and PyPI):
# installs them (once) and runs the ignored interop tests of mcpr-runtime.
#
#   conformance-tests/interop/run.sh [DIR]    (default: $MCPR_INTEROP_DIR or /tmp/mcpr-interop)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export MCPR_INTEROP_DIR=${1:-${MCPR_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpr-interop}}

"$here/install.sh" "$MCPR_INTEROP_DIR"
cd "$root"
cargo test -p mcpr-runtime --test interop -- --ignored --test-threads=1
# mcpr lint / snapshot / diff / init against the same servers (cli/tests/lint_interop.rs).
cargo test -p mcpr --test lint_interop -- --ignored --test-threads=1
