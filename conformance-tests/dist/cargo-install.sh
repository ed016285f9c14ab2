#!/usr/bin/env bash
# `cargo install mcpr --locked` from the packaged crates, as crates.io would serve them:
# the four .crate files of scripts/dist.sh (target/dist/crates) and every dependency from
# `cargo vendor` make a directory source that replaces crates.io, so the install resolves
# exactly what a user's would — the packaged Cargo.lock (--locked), the published manifests,
# nothing from the workspace — offline. Built with --debug to spare CI a second release
# build; the release profile is the same code. Prints the installed binary's version.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
crates="$root/target/dist/crates"
ls "$crates"/mcpr-*.crate >/dev/null 2>&1 || { echo "no crates in $crates: run scripts/dist.sh" >&2; exit 1; }
work="${MCPR_CARGO_INSTALL_DIR:-$root/target/cargo-install-check}"
rm -rf "$work/vendor" "$work/root"
mkdir -p "$work/vendor"

# Every registry crate the workspace locks (a superset of what mcpr needs).
cargo vendor --quiet --locked --versioned-dirs "$work/vendor" >/dev/null

# The packaged crates, unpacked with the checksum a registry would give them.
for crate in "$crates"/*.crate; do
  name=$(basename "$crate" .crate)
  rm -rf "${work:?}/vendor/$name"
  tar -xzf "$crate" -C "$work/vendor"
  sum=$(sha256sum "$crate" | cut -d' ' -f1)
  printf '{"files":{},"package":"%s"}\n' "$sum" >"$work/vendor/$name/.cargo-checksum.json"
done

version=$(basename "$(ls "$crates"/mcpr-[0-9]*.crate)" .crate | sed 's/^mcpr-//')
CARGO_TARGET_DIR="$work/target" cargo install mcpr --version "=$version" --locked --debug --quiet \
  --root "$work/root" \
  --config 'source.crates-io.replace-with="packaged"' \
  --config "source.packaged.directory=\"$work/vendor\""
"$work/root/bin/mcpr" --version
[ "$("$work/root/bin/mcpr" --version)" = "mcpr $version" ]
# The build and the vendored sources take gigabytes; the installed binary is what a user keeps.
rm -rf "${work:?}/target" "${work:?}/vendor"
