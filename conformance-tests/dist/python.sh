#!/usr/bin/env bash
# The Python binding as a user gets it (docs/pytest.md): the wheel scripts/dist.sh wrote to
# target/dist, installed into a fresh virtual environment (the wheel with --no-index: it
# needs nothing else; pytest, pinned, from PyPI), then the suite python/tests run by that
# environment's python with nothing of the repository on its path: no PYTHONPATH, no
# MCPR_BINARY. So the installed `mcpr` package, the `mcpr` binary beside it, and the pytest
# plugin loaded through the wheel's pytest11 entry point are what the tests exercise.
#
#   conformance-tests/dist/python.sh [PYTEST ARGS…]
#
# Variables:
#   MCPR_DIST_DIR          where the wheel is (default target/dist)
#   MCPR_REFERENCE_SERVER  the reference server (default target/debug/mcpr-reference-server)
#   MCPR_INTEROP_DIR       where conformance-tests/interop/install.sh put the public servers;
#                          the tests use $MCPR_INTEROP_DIR/venv/bin/mcp-server-time and skip
#                          them, saying why, when it is absent…
#   MCPR_REQUIRE_INTEROP=1 …unless this is set: then its absence fails
#   PYTHON                 the interpreter the environment is made from (default python3)
#   PYTEST_VERSION         default 9.2.0
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
dist="${MCPR_DIST_DIR:-$root/target/dist}"
python="${PYTHON:-python3}"
pytest_version="${PYTEST_VERSION:-9.2.0}"
reference="${MCPR_REFERENCE_SERVER:-$root/target/debug/mcpr-reference-server}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcpr-python-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '== %s\n' "$*"; }

version=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="mcpr"))')
shopt -s nullglob
wheels=("$dist"/mcpr-"$version"-py3-none-*manylinux_2_17_x86_64*.whl)
shopt -u nullglob
[ "${#wheels[@]}" = 1 ] || fail "want one mcpr-$version wheel in $dist, found ${#wheels[@]}: run scripts/dist.sh first"
wheel="${wheels[0]}"
[ -x "$reference" ] || fail "no reference server at $reference: cargo build -p mcpr-reference-server, or set MCPR_REFERENCE_SERVER"

step "the wheel carries the package and the plugin's entry point"
"$python" - "$wheel" "$version" <<'PY' || fail "the wheel lacks the Python package or its pytest11 entry point"
import sys, zipfile
wheel, version = sys.argv[1:]
names = set(zipfile.ZipFile(wheel).namelist())
need = {"mcpr/__init__.py", "mcpr/_driver.py", "mcpr/_client.py", "mcpr/pytest_plugin.py",
        f"mcpr-{version}.data/scripts/mcpr", f"mcpr-{version}.dist-info/entry_points.txt"}
missing = sorted(need - names)
if missing:
    sys.exit("missing: %s" % ", ".join(missing))
import configparser
eps = zipfile.ZipFile(wheel).read(f"mcpr-{version}.dist-info/entry_points.txt").decode()
parsed = configparser.ConfigParser()
parsed.read_string(eps)
if parsed.get("pytest11", "mcpr", fallback=None) != "mcpr.pytest_plugin":
    sys.exit("entry_points.txt has no pytest11 entry `mcpr = mcpr.pytest_plugin`:\n" + eps)
PY

step "a fresh virtual environment: the wheel (no index), then pytest==$pytest_version"
"$python" -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check --no-index "$wheel"
"$py" -m pip install -q --disable-pip-version-check "pytest==$pytest_version"

step "the installed package is the one imported, and it finds its own binary"
(
  cd "$work"
  env -u PYTHONPATH -u MCPR_BINARY "$py" - "$work/venv" <<'PY'
import os, sys
import mcpr
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(mcpr.__file__).startswith(venv + os.sep), mcpr.__file__
assert os.path.realpath(mcpr.find_mcpr_bin()) == os.path.join(venv, "bin", "mcpr"), mcpr.find_mcpr_bin()
from importlib.metadata import entry_points
eps = entry_points()
eps = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
assert [e.value for e in eps if e.name == "mcpr"] == ["mcpr.pytest_plugin"], list(eps)
print("mcpr", mcpr.find_mcpr_bin(), "with the pytest11 entry point mcpr = mcpr.pytest_plugin")
PY
) || fail "the installed package does not hold together"

interop="${MCPR_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpr-interop}"
if [ -x "$interop/venv/bin/mcp-server-time" ]; then
  echo "mcp-server-time: $interop/venv/bin/mcp-server-time"
elif [ "${MCPR_REQUIRE_INTEROP:-}" = 1 ]; then
  fail "mcp-server-time is not at $interop/venv/bin/mcp-server-time (conformance-tests/interop/install.sh) and MCPR_REQUIRE_INTEROP=1"
else
  echo "mcp-server-time: absent from $interop/venv/bin (its tests will be skipped; conformance-tests/interop/install.sh installs it)"
fi

step "python/tests with the installed package (no PYTHONPATH, no MCPR_BINARY)"
cd "$work"
env -u PYTHONPATH -u MCPR_BINARY \
  PYTHONDONTWRITEBYTECODE=1 \
  MCPR_EXPECT_ENTRY_POINT=1 \
  MCPR_REFERENCE_SERVER="$reference" \
  MCPR_INTEROP_DIR="$interop" \
  "$py" -m pytest -p no:cacheprovider -rs "$root/python/tests" "$@"
echo "the Python binding works as installed from the wheel"
