#!/usr/bin/env bash
# Makes every release artefact of mcpr for the host target in one build (docs/release.md):
#
#   target/dist/mcpr-VERSION-x86_64-unknown-linux-gnu.tar.gz (+ .sha256)   the archive
#   target/dist/mcpr-VERSION-py3-none-manylinux_2_17_x86_64….whl           the Python wheel
#   target/dist/mcpr-VERSION.tgz, mcpr-linux-x64-gnu-VERSION.tgz           the npm packages
#   target/dist/crates/*.crate                                             the crates.io packages
#   target/dist/mcpr-vscode-VERSION.vsix                                   the VS Code extension
#   target/dist/SHA256SUMS                                                 every file above
#
# The binary is built once, by maturin with zig as the linker against glibc 2.17, and that
# same file goes into the wheel, the archive and the npm platform package. The tools come
# from PyPI at pinned versions into a virtual environment of their own
# ($MCPR_DIST_TOOLS, default target/dist-tools); the extension is packed by scripts/vsix.sh
# with vsce from npm, pinned there, in the same folder. Usage: scripts/dist.sh [--skip-crates]
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN_VERSION=1.16.0
ZIG_VERSION=0.17.0
TARGET=x86_64-unknown-linux-gnu
# The newest glibc symbol version the binary may need: what manylinux2014 promises.
GLIBC_FLOOR=2.17
PUBLISHED_CRATES=(mcpr-compiler mcpr-runtime mcpr-lsp mcpr)

dist="target/dist"
# Absolute: maturin hands zig's command (this folder's python) to build scripts that run
# in other folders (a relative path there names nothing, and the C of ring fails to build).
tools="$(realpath -m "${MCPR_DIST_TOOLS:-target/dist-tools}")"
skip_crates=false
for arg in "$@"; do
  case "$arg" in
    --skip-crates) skip_crates=true ;;
    *) echo "usage: scripts/dist.sh [--skip-crates]" >&2; exit 2 ;;
  esac
done

step() { printf '== %s\n' "$*"; }
die() { printf 'dist: %s\n' "$*" >&2; exit 1; }

# The version and the project's address, from Cargo.toml (their one place).
read -r version repository < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
cli = next(p for p in meta["packages"] if p["name"] == "mcpr")
print(cli["version"], cli["repository"])')
[ -n "$version" ] || die "cannot read the version of the mcpr crate"
stem="mcpr-$version-$TARGET"

step "build tools: maturin $MATURIN_VERSION and zig $ZIG_VERSION (PyPI) in $tools"
if [ ! -x "$tools/bin/maturin" ] || ! "$tools/bin/maturin" --version | grep -qF "$MATURIN_VERSION"; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q "maturin==$MATURIN_VERSION" "ziglang==$ZIG_VERSION"
fi

rm -rf "$dist"
mkdir -p "$dist"

step "the wheel (and the one release build of the binary)"
# --zig links against the glibc 2.17 stubs zig ships; manylinux2014 is the wheel tag that
# promises glibc >= 2.17, which the check below proves of the binary itself.
PATH="$tools/bin:$PATH" maturin build --release --zig --compatibility manylinux2014 \
  --target "$TARGET" --out "$dist"
wheel=$(ls "$dist"/mcpr-"$version"-*.whl)

step "the binary, taken from the wheel"
stage="target/dist-stage"
rm -rf "$stage"
mkdir -p "$stage"
python3 - "$wheel" "$version" "$stage/mcpr" <<'PY'
import os, shutil, sys, zipfile
wheel, version, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(f"mcpr-{version}.data/scripts/mcpr") as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
os.chmod(out, 0o755)
PY
"$stage/mcpr" --version | grep -qx "mcpr $version" || die "the built binary does not say mcpr $version"

step "the glibc the binary needs (at most $GLIBC_FLOOR)"
glibc=$(objdump -T "$stage/mcpr" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ -n "$glibc" ] || die "objdump found no GLIBC_ symbol versions in the binary"
if [ "$(printf '%s\n%s\n' "$glibc" "$GLIBC_FLOOR" | sort -V | tail -n 1)" != "$GLIBC_FLOOR" ]; then
  die "the binary needs GLIBC_$glibc, newer than $GLIBC_FLOOR"
fi
echo "highest glibc symbol version: GLIBC_$glibc"
echo "$glibc" >"$stage/glibc"

step "the archive $stem.tar.gz"
mkdir -p "$stage/$stem"
cp "$stage/mcpr" README.md LICENSE-MIT LICENSE-APACHE "$stage/$stem/"
# Owner and times fixed, entries sorted: the same binary gives the same archive.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00:00Z' \
  -C "$stage" -cf - "$stem" | gzip -n -9 >"$dist/$stem.tar.gz"
(cd "$dist" && sha256sum "$stem.tar.gz" >"$stem.tar.gz.sha256")

step "the npm packages"
npm_stage="$stage/npm"
mkdir -p "$npm_stage"
cp -R npm/mcpr "$npm_stage/mcpr"
cp -R npm/platforms/linux-x64-gnu "$npm_stage/linux-x64-gnu"
mkdir -p "$npm_stage/linux-x64-gnu/bin"
cp "$stage/mcpr" "$npm_stage/linux-x64-gnu/bin/mcpr"
cp README.md "$npm_stage/mcpr/README.md"
for p in mcpr linux-x64-gnu; do
  cp LICENSE-MIT LICENSE-APACHE "$npm_stage/$p/"
done
# The version, the platform packages' versions and the address, stamped from Cargo.toml.
node - "$npm_stage" "$version" "$repository" <<'JS'
const fs = require("node:fs");
const [dir, version, repository] = process.argv.slice(2);
for (const name of ["mcpr", "linux-x64-gnu"]) {
  const file = `${dir}/${name}/package.json`;
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.version = version;
  pkg.repository = { type: "git", url: `git+${repository}.git` };
  pkg.homepage = repository;
  for (const dep of Object.keys(pkg.optionalDependencies || {})) {
    pkg.optionalDependencies[dep] = version;
  }
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
}
JS
for p in mcpr linux-x64-gnu; do
  (cd "$npm_stage/$p" && npm pack --silent --pack-destination "$OLDPWD/$dist" >/dev/null)
done

# The VS Code extension needs no build of the binary; scripts/vsix.sh also runs alone.
MCPR_DIST_TOOLS="$tools" scripts/vsix.sh

if ! $skip_crates; then
  step "the crates for crates.io: ${PUBLISHED_CRATES[*]}"
  # Packaged without building them again; `cargo publish --dry-run` (as .ci/run does) builds
  # each against the others. --allow-dirty: the artefacts of a working tree are for trying.
  pkgs=()
  for c in "${PUBLISHED_CRATES[@]}"; do pkgs+=(-p "$c"); done
  cargo package --no-verify --allow-dirty --quiet "${pkgs[@]}"
  mkdir -p "$dist/crates"
  for c in "${PUBLISHED_CRATES[@]}"; do cp "target/package/$c-$version.crate" "$dist/crates/"; done
fi

step "checksums"
(cd "$dist" && find . -type f ! -name SHA256SUMS ! -name '*.sha256' | sed 's|^\./||' | sort | xargs sha256sum >SHA256SUMS)
ls -l "$dist" "$dist"/crates 2>/dev/null | sed 's/^/  /'
echo "binary: $(stat -c %s "$stage/mcpr") bytes, GLIBC_$glibc at most"
