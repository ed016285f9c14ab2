#!/usr/bin/env bash
# Coverage-guided fuzzing of the three frontends and the data pipeline with cargo-fuzz
# (libFuzzer).
#   fuzz/run.sh [SECONDS] [TARGET…]     default: 60 seconds for each of mcpr, yaml, legacy, data
# Each target's corpus starts from the repository's own files of its format
# (conformance-tests/, examples/, stdlib-flows/; CSV and JSON data files for data) and grows in $MCPR_FUZZ_DIR/corpus/TARGET.
# A crash, a timeout (10 s on one input) or an input needing more than 2 GB stops the run
# with the input saved under $MCPR_FUZZ_DIR/artifacts/TARGET; replay one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET FILE   (in fuzz/).
# cargo-fuzz needs nightly compiler flags: on the stable toolchain RUSTC_BOOTSTRAP=1 enables
# them. docs/fuzzing.md has the details and the long run.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mcpr yaml legacy data)
dir="${MCPR_FUZZ_DIR:-${TMPDIR:-/tmp}/mcpr-fuzz}"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${MCPR_FUZZ_TARGET_DIR:-$dir/target}"
fuzz="${CARGO_FUZZ:-cargo fuzz}"

seed() { # TARGET EXT…
  local target="$1"; shift
  mkdir -p "$dir/corpus/$target"
  for ext in "$@"; do
    find ../conformance-tests ../examples ../stdlib-flows -type f -name "*.$ext" -size -64k \
      -exec cp -n {} "$dir/corpus/$target/" \; 2>/dev/null || true
  done
}

$fuzz build -O
for t in "${targets[@]}"; do
  case "$t" in
    mcpr) seed mcpr mcpr ;;
    yaml) seed yaml yaml yml json ;;
    legacy) seed legacy mcp ;;
    data) seed data csv json ;;
    *) echo "unknown target $t"; exit 2 ;;
  esac
  mkdir -p "$dir/artifacts/$t"
  echo "== fuzz $t for ${seconds}s ($(ls "$dir/corpus/$t" | wc -l) corpus inputs)"
  $fuzz run -O "$t" "$dir/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$dir/artifacts/$t/" -print_final_stats=1 2>&1 | tail -n 12
done
