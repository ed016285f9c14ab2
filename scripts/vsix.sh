#!/usr/bin/env bash
# Packages the VS Code extension of editors/vscode as a release artefact (docs/release.md):
#
#   target/dist/mcpr-vscode-VERSION.vsix
#
# scripts/dist.sh runs it with the other artefacts; it also runs alone, in seconds. The
# extension's version and address are stamped from Cargo.toml, as the npm packages' are,
# into a copy of the folder (target/vsix-stage), whose runtime dependencies `npm ci`
# installs from the committed lock file; @vscode/vsce packs it, at a pinned version from
# npm, installed into a folder of its own ($MCPR_DIST_TOOLS/vsce, default
# target/dist-tools/vsce). Needs Node.js >= 18 with npm. Usage: scripts/vsix.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

# The same version editors/vscode/package.json names for working on the extension.
VSCE_VERSION=3.2.1

dist="target/dist"
tools="$(realpath -m "${MCPR_DIST_TOOLS:-target/dist-tools}")"
stage="target/vsix-stage"

step() { printf '== %s\n' "$*"; }
die() { printf 'vsix: %s\n' "$*" >&2; exit 1; }
[ "$#" = 0 ] || { echo "usage: scripts/vsix.sh" >&2; exit 2; }

read -r version repository < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
cli = next(p for p in meta["packages"] if p["name"] == "mcpr")
print(cli["version"], cli["repository"])')
[ -n "$version" ] || die "cannot read the version of the mcpr crate"

step "packaging tool: @vscode/vsce $VSCE_VERSION (npm) in $tools/vsce"
vsce="$tools/vsce/node_modules/.bin/vsce"
if [ ! -x "$vsce" ] || [ "$("$vsce" --version)" != "$VSCE_VERSION" ]; then
  mkdir -p "$tools/vsce"
  # --ignore-scripts skips the download of vsce's signing tool, which packing does not need.
  npm install --prefix "$tools/vsce" --no-audit --no-fund --no-save --silent --ignore-scripts \
    "@vscode/vsce@$VSCE_VERSION"
fi
[ "$("$vsce" --version)" = "$VSCE_VERSION" ] || die "vsce is not $VSCE_VERSION"

step "the VS Code extension mcpr-vscode-$version.vsix"
rm -rf "$stage"
mkdir -p "$stage" "$dist"
tar -C editors/vscode --exclude=node_modules --exclude='*.vsix' -cf - . | tar -C "$stage" -xf -
# The version and the address, stamped from Cargo.toml (package.json and its lock file).
node - "$stage" "$version" "$repository" <<'JS'
const fs = require("node:fs");
const [dir, version, repository] = process.argv.slice(2);
const edit = (file, change) => {
  const json = JSON.parse(fs.readFileSync(`${dir}/${file}`, "utf8"));
  change(json);
  fs.writeFileSync(`${dir}/${file}`, JSON.stringify(json, null, 2) + "\n");
};
edit("package.json", (pkg) => {
  pkg.version = version;
  pkg.repository = { type: "git", url: `git+${repository}.git` };
  pkg.homepage = repository;
  pkg.bugs = { url: `${repository}/issues` };
});
edit("package-lock.json", (lock) => {
  lock.version = version;
  if (lock.packages && lock.packages[""]) lock.packages[""].version = version;
});
JS
(cd "$stage" && npm ci --omit=dev --no-audit --no-fund --silent --ignore-scripts)
out="$root/$dist/mcpr-vscode-$version.vsix"
rm -f "$out"
(cd "$stage" && "$vsce" package --out "$out" >/dev/null)
[ -s "$out" ] || die "vsce wrote no $out"
echo "wrote $dist/mcpr-vscode-$version.vsix ($(stat -c %s "$out") bytes)"
