#!/usr/bin/env bash
# The steps of the mcpr GitHub Action (action.yml), one per sub-command:
#   install  use $MCPR_ACTION_MCPR, else `mcpr` on PATH, else `cargo install` from
#            $MCPR_ACTION_SOURCE (this action's checkout); the binary's folder goes on
#            $GITHUB_PATH
#   run      mcpr run $MCPR_ACTION_SUITES $MCPR_ACTION_ARGS --format github, with the JUnit,
#            HTML and JSON reports in $MCPR_ACTION_REPORT_DIR; writes exit-code, junit,
#            html, json and report-dir to $GITHUB_OUTPUT and exits 0, so the reports are
#            uploaded before `finish` fails the job
#   finish   exits with $MCPR_ACTION_EXIT (a missing code is a failure)
# Tested locally by cli/tests/action.rs.
set -euo pipefail

die() {
  echo "::error title=mcpr action::$*"
  exit 2
}

output() {
  # One `name=value` line of the step's outputs ($GITHUB_OUTPUT; stdout outside Actions).
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  else
    printf 'output %s=%s\n' "$1" "$2"
  fi
}

install() {
  local bin
  if [ -n "${MCPR_ACTION_MCPR:-}" ]; then
    [ -x "$MCPR_ACTION_MCPR" ] || die "input mcpr: $MCPR_ACTION_MCPR is not an executable file"
    bin="$(cd "$(dirname "$MCPR_ACTION_MCPR")" && pwd)/$(basename "$MCPR_ACTION_MCPR")"
  elif command -v mcpr >/dev/null 2>&1; then
    bin="$(command -v mcpr)"
  else
    [ -f "${MCPR_ACTION_SOURCE:-}/cli/Cargo.toml" ] ||
      die "no mcpr on PATH and no source to build it from (MCPR_ACTION_SOURCE=${MCPR_ACTION_SOURCE:-})"
    command -v cargo >/dev/null 2>&1 || die "no mcpr on PATH and no cargo to install it with"
    local root="${RUNNER_TOOL_CACHE:-${TMPDIR:-/tmp}}/mcpr"
    cargo install --locked --quiet --root "$root" --path "$MCPR_ACTION_SOURCE/cli"
    bin="$root/bin/mcpr"
  fi
  local dir
  dir="$(dirname "$bin")"
  if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$dir" >>"$GITHUB_PATH"
  fi
  echo "mcpr: $bin ($("$bin" --version))"
}

run() {
  local dir="${MCPR_ACTION_REPORT_DIR:-mcpr-report}"
  [ -n "$dir" ] || die "input report-dir is empty"
  command -v mcpr >/dev/null 2>&1 || die "mcpr is not on PATH (the install step puts it there)"
  local -a suites=() extra=()
  # Suites and arguments are split on white space, as a shell would without quotes.
  read -r -d '' -a suites <<<"${MCPR_ACTION_SUITES:-.}" || true
  read -r -d '' -a extra <<<"${MCPR_ACTION_ARGS:-}" || true
  [ "${#suites[@]}" -gt 0 ] || suites=(.)
  mkdir -p "$dir"
  output report-dir "$dir"
  local code=0
  mcpr run "${suites[@]}" "${extra[@]}" --format github \
    --junit "$dir/junit.xml" --html "$dir/report.html" --json "$dir/report.json" || code=$?
  output exit-code "$code"
  for kind in junit:junit.xml html:report.html json:report.json; do
    if [ -f "$dir/${kind#*:}" ]; then
      output "${kind%%:*}" "$dir/${kind#*:}"
    fi
  done
  echo "mcpr exited with $code"
}

finish() {
  local code="${MCPR_ACTION_EXIT:-}"
  case "$code" in
    0) exit 0 ;;
    '' | *[!0-9]*) die "mcpr did not report an exit code (the run step did not finish)" ;;
    *) echo "mcpr failed with exit code $code (see the annotations and the job summary)"; exit "$code" ;;
  esac
}

case "${1:-}" in
  install | run | finish) "$1" ;;
  *) die "usage: entry.sh install|run|finish" ;;
esac
