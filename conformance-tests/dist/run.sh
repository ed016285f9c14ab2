#!/usr/bin/env bash
# The release artefacts installed as a user installs them, from the files scripts/dist.sh
# wrote to target/dist (docs/release.md), each in a fresh place of its own:
#   the archive  sha256 checked, extracted, run;
#   the wheel    `pip install` into a new virtual environment, with no index (the wheel
#                alone must be enough), then `mcpr` from the environment's bin/;
#   npm          `npm install` of both tarballs into a new npm project, then `npx mcpr`;
#   VS Code      the .vsix is a zip with the extension's package.json at this version, its
#                script, grammar and runtime dependency (`run.sh vsix` checks only this,
#                after scripts/vsix.sh);
# and the binary's glibc symbol versions against 2.17. Each runs `--version` and a real
# command against conformance-tests/dist/tiny_server.py (Python standard library only).
# Prints the artefacts' sizes and the time from `pip install` to the first lint result.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
dist="$root/target/dist"
server="$root/conformance-tests/dist/tiny_server.py"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcpr-dist-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '== %s\n' "$*"; }
ms() { date +%s%3N; }

version=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="mcpr"))')
target=x86_64-unknown-linux-gnu
archive="mcpr-$version-$target.tar.gz"
vsix="$dist/mcpr-vscode-$version.vsix"

# The VS Code extension: what VS Code reads from the .vsix (a zip).
check_vsix() {
  step "the VS Code extension: $(basename "$vsix")"
  [ -f "$vsix" ] || fail "no $(basename "$vsix") in $dist: run scripts/vsix.sh (or scripts/dist.sh)"
  python3 - "$vsix" "$version" <<'PY' || fail "$(basename "$vsix") is not the extension"
import json, sys, zipfile
path, version = sys.argv[1:]
if not zipfile.is_zipfile(path):
    sys.exit(f"{path} is not a zip file")
with zipfile.ZipFile(path) as z:
    names = set(z.namelist())
    want = ["extension.vsixmanifest", "extension/package.json", "extension/extension.js",
            "extension/language-configuration.json", "extension/syntaxes/mcpr.tmLanguage.json",
            "extension/node_modules/vscode-languageclient/package.json"]
    missing = [n for n in want if n not in names]
    if missing:
        sys.exit(f"missing {missing}")
    pkg = json.loads(z.read("extension/package.json"))
    if pkg["version"] != version or pkg["name"] != "mcpr":
        sys.exit(f"package.json says {pkg['name']} {pkg['version']}, want mcpr {version}")
    if "mcpr" not in pkg["contributes"]["languages"][0]["id"]:
        sys.exit("package.json contributes no mcpr language")
    if any(n.endswith(".vsix") or "/.bin/" in n for n in names):
        sys.exit("the package holds build leftovers")
print(f"{len(names)} files, package.json at {version}")
PY
}
if [ "${1:-}" = vsix ]; then
  check_vsix
  echo "the VS Code extension is packaged"
  exit 0
fi
[ "$#" = 0 ] || { echo "usage: conformance-tests/dist/run.sh [vsix]" >&2; exit 2; }
[ -f "$dist/$archive" ] || fail "no $archive in $dist: run scripts/dist.sh first"

# `mcpr lint` against the tiny server must succeed and say what it saw.
lint_ok() {
  local out
  out=$("$@" lint -- python3 "$server") || fail "$* lint exited $?: $out"
  grep -q '^tiny-server: 1 tool' <<<"$out" || fail "unexpected lint output from $*: $out"
}

step "the archive: checksum, extract, run"
(cd "$dist" && sha256sum -c "$archive.sha256") || fail "the archive's sha256 does not match"
# The digest with its last digit changed (to 1 when it is 0: one archive in 16 ends in 0).
sed -e 's/^\([0-9a-f]\{63\}\)0/\11/' -e 't' -e 's/^\([0-9a-f]\{63\}\)./\10/' \
  "$dist/$archive.sha256" >"$work/bad.sha256"
cmp -s "$dist/$archive.sha256" "$work/bad.sha256" && fail "the changed checksum is the same"
cp "$dist/$archive" "$work/"
if (cd "$work" && sha256sum -c --status bad.sha256); then fail "a wrong checksum was accepted"; fi
mkdir "$work/archive"
tar -xzf "$dist/$archive" -C "$work/archive"
bin="$work/archive/mcpr-$version-$target/mcpr"
for f in mcpr README.md LICENSE-MIT LICENSE-APACHE; do
  [ -f "$work/archive/mcpr-$version-$target/$f" ] || fail "the archive has no $f"
done
[ "$("$bin" --version)" = "mcpr $version" ] || fail "archive binary: $("$bin" --version)"
lint_ok "$bin"

step "the binary needs glibc 2.17 at most"
glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ "$(printf '%s\n2.17\n' "$glibc" | sort -V | tail -n 1)" = "2.17" ] || fail "needs GLIBC_$glibc"
echo "highest glibc symbol version: GLIBC_$glibc"
# Each listing is read whole before it is searched: `grep -q` stops reading at its first
# match, and a writer still writing then dies of SIGPIPE, which pipefail makes a failure.
if grep -v -E 'linux-vdso|libc\.so|libm\.so|libpthread|libdl|librt|libgcc_s|ld-linux' <<<"$(ldd "$bin")" | grep -q '=>'; then
  fail "the binary links more than the C library: $(ldd "$bin")"
fi

step "the wheel: pip install into a fresh virtual environment"
wheel=$(ls "$dist"/mcpr-"$version"-py3-none-*manylinux_2_17_x86_64*.whl)
python3 -m venv "$work/venv"
start=$(ms)
"$work/venv/bin/pip" install -q --no-index "$wheel"
lint_ok "$work/venv/bin/mcpr"
wheel_ms=$(( $(ms) - start ))
[ "$("$work/venv/bin/mcpr" --version)" = "mcpr $version" ] || fail "wheel binary version"
[ "$("$work/venv/bin/python" -m mcpr --version)" = "mcpr $version" ] || fail "python -m mcpr"
found=$("$work/venv/bin/python" -c 'import mcpr; print(mcpr.find_mcpr_bin())')
[ "$found" = "$work/venv/bin/mcpr" ] || fail "find_mcpr_bin() said $found"
grep -q 'entry_points.txt\|METADATA' <<<"$(python3 -m zipfile -l "$wheel")" || fail "the wheel has no metadata"

step "npm: the launcher alone says what is missing"
mkdir "$work/npm-alone" && cd "$work/npm-alone"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent --omit=optional "$dist/mcpr-$version.tgz"
set +e
alone=$(npx --no-install mcpr --version 2>&1)
code=$?
set -e
[ "$code" = 1 ] && grep -q 'mcpr: the package @mcpr/linux-x64-gnu' <<<"$alone" ||
  fail "without the platform package: exit $code, $alone"

step "npm: both tarballs into a fresh npm project, then npx"
mkdir "$work/npm" && cd "$work/npm"
npm init -y >/dev/null
for t in "$dist/mcpr-$version.tgz" "$dist/mcpr-linux-x64-gnu-$version.tgz"; do
  [ -f "$t" ] || fail "no $(basename "$t")"
  if grep -q '"\(pre\|post\)\?install"' <<<"$(tar -xOzf "$t" package/package.json)"; then
    fail "$(basename "$t") has an install script"
  fi
done
npm install --no-audit --no-fund --silent "$dist/mcpr-linux-x64-gnu-$version.tgz" "$dist/mcpr-$version.tgz"
[ "$(npx --no-install mcpr --version)" = "mcpr $version" ] || fail "npx mcpr --version"
grep -q '"name": "add"' <<<"$(npx --no-install mcpr tools -- python3 "$server")" || fail "npx mcpr tools"
set +e
npx --no-install mcpr call add '{"a": "x", "b": 1}' -- python3 "$server" >/dev/null
code=$?
set -e
[ "$code" = 1 ] || fail "the exit code of the binary did not pass through npx (got $code, want 1)"
cd "$root"

check_vsix

step "sizes"
for f in "$dist/$archive" "$wheel" "$dist/mcpr-$version.tgz" "$dist/mcpr-linux-x64-gnu-$version.tgz" "$vsix" "$bin"; do
  printf '  %10d bytes  %s\n' "$(stat -c %s "$f")" "$(basename "$f")"
done
echo "  time from pip install of the wheel to the first mcpr lint result: ${wheel_ms} ms"
echo "all release artefacts install and run"
