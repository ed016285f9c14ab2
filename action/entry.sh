#!/usr/bin/env bash
# The steps of the mcpr GitHub Action (action.yml), one per sub-command:
#   install  puts a mcpr on $GITHUB_PATH: the `mcpr` input when given; else the release
#            archive of the wanted version for this runner, from the tool cache or
#            downloaded and checked against its .sha256; else (`install: cargo`, or no
#            archive for this OS/arch) `cargo install` from the action's own source
#   run      `mcpr lint` (and `mcpr diff SNAPSHOT`) against the `command` or `url` server,
#            and/or `mcpr run` over the suites; annotations on stdout, the job summary,
#            the reports in the report folder; writes exit-code (the worst of them) and the
#            report paths to $GITHUB_OUTPUT and exits 0, so the reports are uploaded
#            before `finish` fails the job
#   finish   exits with $MCPR_ACTION_EXIT (a missing code is a failure)
# docs/action.md is the user's page; cli/tests/action.rs runs every step locally, with a
# fake release folder served through MCPR_ACTION_DOWNLOAD_BASE (file:// URLs).
set -euo pipefail

# The targets with a release archive, by runner: `RUNNER_OS/RUNNER_ARCH` as GitHub names
# them (uname's names when run outside Actions).
release_target() {
  case "$1/$2" in
    Linux/X64 | Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    *) echo "" ;;
  esac
}

# ---------------------------------------------------------------------------------------
# Messages and outputs

# Workflow command values: `%`, CR and LF are escaped in messages, `:` and `,` too in
# properties, or the runner cuts the command short.
escape_data() {
  local s="$1"
  s="${s//%/%25}"
  s="${s//$'\r'/%0D}"
  s="${s//$'\n'/%0A}"
  printf '%s' "$s"
}

escape_property() {
  local s
  s="$(escape_data "$1")"
  s="${s//:/%3A}"
  s="${s//,/%2C}"
  printf '%s' "$s"
}

annotate() { # LEVEL TITLE MESSAGE
  printf '::%s title=%s::%s\n' "$1" "$(escape_property "$2")" "$(escape_data "$3")"
}

die() {
  annotate error "mcpr action" "$*"
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

summary() {
  # Appends standard input to the job summary (dropped outside Actions).
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat >>"$GITHUB_STEP_SUMMARY"
  else
    cat >/dev/null
  fi
}

need() { # TOOL WHY
  command -v "$1" >/dev/null 2>&1 || die "$1 is not installed on this runner; it is needed $2"
}

# ---------------------------------------------------------------------------------------
# install

BIN=""     # the mcpr binary the install step settles on
VERSION="" # the release version it wants (X.Y.Z, no `v`)
SCRATCH="" # a temporary folder, removed on exit

cleanup() {
  if [ -n "$SCRATCH" ]; then rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT

install() {
  if [ -n "${MCPR_ACTION_MCPR:-}" ]; then
    given_binary "$MCPR_ACTION_MCPR"
  else
    local os="${RUNNER_OS:-$(uname -s)}" arch="${RUNNER_ARCH:-$(uname -m)}"
    local target
    target="$(release_target "$os" "$arch")"
    wanted_version
    case "${MCPR_ACTION_INSTALL:-auto}" in
      auto)
        if [ -n "$target" ]; then
          download_install "$target" "$(tool_arch "$arch")"
        else
          annotate notice "mcpr action" "no prebuilt mcpr archive exists for $os/$arch; building mcpr $VERSION with cargo instead (this takes several minutes)"
          cargo_install "$(tool_arch "$arch")"
        fi
        ;;
      download)
        [ -n "$target" ] ||
          die "install: download, but no prebuilt mcpr archive exists for $os/$arch (only for Linux/X64); use install: cargo or auto to build it"
        download_install "$target" "$(tool_arch "$arch")"
        ;;
      cargo) cargo_install "$(tool_arch "$arch")" ;;
      *) die "input install: '${MCPR_ACTION_INSTALL}' is not one of auto, download, cargo" ;;
    esac
  fi
  local line
  line="$("$BIN" --version 2>&1)" || die "$BIN does not run on this runner: $line"
  line="${line%%$'\n'*}"
  if [ -n "${GITHUB_PATH:-}" ]; then
    dirname "$BIN" >>"$GITHUB_PATH"
  fi
  echo "mcpr: $BIN ($line)"
}

# The `mcpr` input: a path, or a command name looked up on PATH.
given_binary() {
  local given="$1" found
  if [[ "$given" != */* ]] && found="$(command -v -- "$given" 2>/dev/null)" && [[ "$found" == /* ]]; then
    given="$found"
  fi
  [ -f "$given" ] && [ -x "$given" ] || die "input mcpr: $given is not an executable file"
  BIN="$(cd "$(dirname "$given")" && pwd)/$(basename "$given")"
}

# VERSION from the `version` input; by default the action's own release: its ref when it
# is a release tag (vX.Y.Z), else the version of the checked-out action's workspace.
wanted_version() {
  local v="${MCPR_ACTION_VERSION:-}" from="input version"
  if [ -z "$v" ] && [[ "${MCPR_ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
    v="$MCPR_ACTION_REF" from="the action's ref"
  fi
  if [ -z "$v" ]; then
    v="$(workspace_version "${MCPR_ACTION_SOURCE:-}/Cargo.toml")" ||
      die "no version input, the action's ref (${MCPR_ACTION_REF:-none}) is not a release tag, and ${MCPR_ACTION_SOURCE:-}/Cargo.toml names no [workspace.package] version"
    from="the action's Cargo.toml"
  fi
  v="${v#v}"
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
    die "$from: '$v' is not a version such as 0.1.0"
  VERSION="$v"
  echo "mcpr version $VERSION (from $from)"
}

# `version = "X"` of the `[workspace.package]` table of a Cargo.toml.
workspace_version() {
  [ -f "$1" ] || return 1
  local v
  v="$(awk '
    /^[[:space:]]*\[/ { inside = ($0 ~ /^[[:space:]]*\[workspace\.package\][[:space:]]*(#.*)?$/); next }
    inside && /^[[:space:]]*version[[:space:]]*=/ {
      sub(/^[^=]*=[[:space:]]*"/, ""); sub(/".*$/, ""); print; exit
    }' "$1")"
  [ -n "$v" ] && printf '%s' "$v"
}

# The tool cache's name for an architecture (@actions/tool-cache: x64, arm64, …).
tool_arch() {
  case "$1" in
    X64 | x86_64 | amd64) echo x64 ;;
    ARM64 | aarch64 | arm64) echo arm64 ;;
    X86 | i386 | i686) echo x86 ;;
    ARM | armv7l) echo arm ;;
    *) printf '%s' "$1" | tr '[:upper:]' '[:lower:]' ;;
  esac
}

# The tool-cache folder of VERSION: `$RUNNER_TOOL_CACHE/mcpr/VERSION/ARCH`, complete when
# the `ARCH.complete` marker is beside it (the @actions/tool-cache layout, so a
# self-hosted runner keeps one download per version).
tool_dir() {
  printf '%s/mcpr/%s/%s' "${RUNNER_TOOL_CACHE:-${TMPDIR:-/tmp}}" "$VERSION" "$1"
}

download_install() { # TARGET ARCH
  local target="$1" dir
  dir="$(tool_dir "$2")"
  if [ -f "$dir.complete" ] && [ -x "$dir/mcpr" ]; then
    echo "mcpr $VERSION is in the tool cache: $dir"
    BIN="$dir/mcpr"
    return
  fi
  need curl "to download the mcpr release (or use install: cargo)"
  need sha256sum "to check the downloaded archive"
  need tar "to unpack the downloaded archive"
  local file="mcpr-$VERSION-$target.tar.gz" base
  base="$(download_base)"
  SCRATCH="$(mktemp -d)"
  fetch "$base/v$VERSION/$file" "$SCRATCH/$file"
  fetch "$base/v$VERSION/$file.sha256" "$SCRATCH/$file.sha256"
  verify "$SCRATCH" "$file"
  mkdir "$SCRATCH/unpacked"
  tar -xzf "$SCRATCH/$file" -C "$SCRATCH/unpacked" || die "$file could not be unpacked"
  local unpacked="$SCRATCH/unpacked/mcpr-$VERSION-$target/mcpr"
  [ -f "$unpacked" ] || die "$file holds no mcpr-$VERSION-$target/mcpr"
  chmod +x "$unpacked"
  local line
  line="$("$unpacked" --version 2>&1)" ||
    die "the downloaded mcpr does not run on this runner ($line); use install: cargo to build it here"
  [ "$line" = "mcpr $VERSION" ] ||
    annotate warning "mcpr action" "$file holds '$line', not mcpr $VERSION"
  # The marker is written last: a run stopped half-way leaves a folder without it, which
  # the next run replaces.
  rm -rf "$dir" "$dir.complete"
  mkdir -p "$dir"
  mv "$unpacked" "$dir/mcpr"
  : >"$dir.complete"
  echo "mcpr $VERSION downloaded, checked and cached: $dir"
  BIN="$dir/mcpr"
}

# Where the release assets are: MCPR_ACTION_DOWNLOAD_BASE (a mirror; file:// in the
# tests), else the releases of the action's own repository.
download_base() {
  if [ -n "${MCPR_ACTION_DOWNLOAD_BASE:-}" ]; then
    printf '%s' "${MCPR_ACTION_DOWNLOAD_BASE%/}"
    return
  fi
  [ -n "${MCPR_ACTION_REPOSITORY:-}" ] ||
    die "cannot tell which repository's releases to download mcpr from (no github.action_repository or github.repository)"
  printf '%s/%s/releases/download' "${GITHUB_SERVER_URL:-https://github.com}" "$MCPR_ACTION_REPOSITORY"
}

fetch() { # URL FILE
  local err
  # Retries cover the network's hiccups; -f makes a 404 an error rather than a saved page.
  if ! err="$(curl -fsSL --retry 3 --retry-delay 2 --retry-connrefused -o "$2" "$1" 2>&1)"; then
    err="${err##*$'\n'}" # the last try's message
    die "could not download $1 (${err:-curl failed}): is there a release v$VERSION with this asset? Set the version input to a released version, or use install: cargo"
  fi
}

# The archive against its .sha256 (`HEX  NAME`, as sha256sum writes it): the line must name
# this archive, and sha256sum -c must accept it.
verify() { # FOLDER FILE
  local folder="$1" file="$2" hex name
  read -r hex name _ <"$folder/$file.sha256" || true
  name="${name#\*}"
  [[ "${hex:-}" =~ ^[0-9a-fA-F]{64}$ ]] || die "$file.sha256 holds no sha256 checksum"
  [ "$name" = "$file" ] || die "$file.sha256 is the checksum of '$name', not of $file"
  if ! (cd "$folder" && printf '%s  %s\n' "$hex" "$file" | sha256sum -c --quiet - >/dev/null 2>&1); then
    local actual
    actual="$(sha256sum "$folder/$file" | cut -d' ' -f1)"
    die "checksum mismatch: $file has sha256 $actual, but $file.sha256 says $hex; the download was refused and nothing was installed"
  fi
  echo "sha256 checked: $hex  $file"
}

# `cargo install` of the action's own source (its checkout), into the tool cache without
# the completion marker: a build is not the release archive, so a later download of the
# same version does not take it for one.
cargo_install() { # ARCH
  [ -f "${MCPR_ACTION_SOURCE:-}/cli/Cargo.toml" ] ||
    die "install: cargo needs the action's source, and ${MCPR_ACTION_SOURCE:-(MCPR_ACTION_SOURCE is empty)}/cli/Cargo.toml does not exist"
  need cargo "to build mcpr (install: cargo); add a Rust toolchain step before this action"
  local source_version
  source_version="$(workspace_version "$MCPR_ACTION_SOURCE/Cargo.toml" || true)"
  if [ -n "$source_version" ] && [ "$source_version" != "$VERSION" ]; then
    annotate warning "mcpr action" "install: cargo builds the action's source (mcpr $source_version), not version $VERSION"
  fi
  local root
  root="$(tool_dir "$1")-cargo"
  echo "Building mcpr from $MCPR_ACTION_SOURCE with cargo (several minutes)"
  cargo install --locked --path "$MCPR_ACTION_SOURCE/cli" --root "$root" ||
    die "cargo install of $MCPR_ACTION_SOURCE/cli failed (see the log above)"
  BIN="$root/bin/mcpr"
}

# ---------------------------------------------------------------------------------------
# run

REPORT_DIR=""
WORST=0          # the worst exit code so far (3 > 2 > 1 > 0)
SERVER_FLAGS=()  # how lint and diff reach the server: --url, --header, --timeout
SERVER_TAIL=()   # `-- sh -c …` for a command
# (Arrays that may be empty are spelt ${a[@]+"${a[@]}"}: macOS's bash 3.2 calls an empty
# "${a[@]}" unbound under set -u.)
JQ=""            # the jq that renders JSON reports; empty: mcpr's own annotations, no table

run() {
  REPORT_DIR="${MCPR_ACTION_REPORT_DIR:-mcpr-report}"
  [ -n "$REPORT_DIR" ] || die "input report-dir is empty"
  command -v mcpr >/dev/null 2>&1 || die "mcpr is not on PATH (the install step puts it there)"
  local server="" suites="${MCPR_ACTION_SUITES:-}"
  if [ -n "${MCPR_ACTION_COMMAND:-}" ] || [ -n "${MCPR_ACTION_URL:-}" ]; then
    server_inputs
    server=yes
  fi
  mkdir -p "$REPORT_DIR"
  output report-dir "$REPORT_DIR"
  if [ -n "$server" ]; then
    lint_server
    if [ -n "${MCPR_ACTION_SNAPSHOT:-}" ]; then
      diff_server
    fi
  fi
  # The suites run when they are given, and when nothing else is (then `.` by default).
  if [ -n "${suites//[[:space:]]/}" ] || [ -z "$server" ]; then
    run_suites
  fi
  output exit-code "$WORST"
  echo "mcpr exited with $WORST"
}

worst() {
  if [ "$1" -gt "$WORST" ]; then WORST="$1"; fi
}

# Checks the server inputs and builds SERVER_FLAGS/SERVER_TAIL; every mistake is reported
# before anything runs.
server_inputs() {
  [ -z "${MCPR_ACTION_COMMAND:-}" ] || [ -z "${MCPR_ACTION_URL:-}" ] ||
    die "inputs command and url: give one of them, not both"
  case "${MCPR_ACTION_FAIL_ON:=}" in
    "" | error | warning | info) ;;
    *) die "input fail-on: '$MCPR_ACTION_FAIL_ON' is not one of error, warning, info" ;;
  esac
  case "${MCPR_ACTION_ALLOW_BREAKING:=false}" in
    true | false) ;;
    *) die "input allow-breaking: '$MCPR_ACTION_ALLOW_BREAKING' is not true or false" ;;
  esac
  local timeout="${MCPR_ACTION_TIMEOUT:-30}"
  [[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "input timeout: '$timeout' is not a whole number of seconds"
  if [ -n "${MCPR_ACTION_SNAPSHOT:-}" ] && [ ! -f "$MCPR_ACTION_SNAPSHOT" ]; then
    die "input snapshot: $MCPR_ACTION_SNAPSHOT does not exist; write it once with mcpr snapshot -o $MCPR_ACTION_SNAPSHOT and commit it"
  fi
  SERVER_FLAGS=(--timeout "$timeout")
  if [ -n "${MCPR_ACTION_URL:-}" ]; then
    SERVER_FLAGS+=(--url "$MCPR_ACTION_URL")
    header_flags
  else
    local dir="${MCPR_ACTION_WORKING_DIRECTORY:-.}"
    [ -d "${dir:=.}" ] || die "input working-directory: $dir is not a folder"
    local headers="${MCPR_ACTION_HEADERS:-}"
    [ -z "${headers//[[:space:]]/}" ] ||
      annotate warning "mcpr action" "input headers is for url; a command server gets none"
    # mcpr itself stays in the workspace (snapshot and report paths as written); the
    # server's shell moves to the working directory and reads the command as sh -c does.
    # shellcheck disable=SC2016 # $1 and $2 belong to that shell
    SERVER_TAIL=(-- sh -c 'cd -- "$1" && exec sh -c "$2"' mcpr-server "$dir" "$MCPR_ACTION_COMMAND")
  fi
  JQ="${MCPR_ACTION_JQ-jq}"
  if [ -z "$JQ" ] || ! command -v "$JQ" >/dev/null 2>&1; then
    JQ=""
    annotate warning "mcpr action" "jq is not installed: mcpr writes the annotations itself and the job summary has no table"
  fi
}

# One `--header` per non-empty line of the headers input (`Name: value`; CRLF accepted).
header_flags() {
  local line n=0 name_re="^[-A-Za-z0-9!#\$%&'*+.^_\`|~]+:"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line="${line%$'\r'}"
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] || continue
    # The value is a secret: the message names the line, never its text.
    [[ "$line" =~ $name_re ]] ||
      die "input headers: line $n is not 'Name: value'"
    SERVER_FLAGS+=(--header "$line")
  done <<<"${MCPR_ACTION_HEADERS:-}"
}

# The server as the log names it (never the headers: they may hold a token).
server_name() {
  if [ -n "${MCPR_ACTION_URL:-}" ]; then
    printf '%s' "$MCPR_ACTION_URL"
  else
    printf '`%s` (in %s)' "$MCPR_ACTION_COMMAND" "${MCPR_ACTION_WORKING_DIRECTORY:-.}"
  fi
}

# mcpr lint against the server: with jq, one JSON run rendered as annotations and a table
# (lint.json stays in the report folder); without, mcpr's own annotations.
lint_server() {
  # Without the input, mcpr lint takes mcpr.toml's [lint] fail-on (else error).
  local -a flags=("${SERVER_FLAGS[@]}")
  if [ -n "$MCPR_ACTION_FAIL_ON" ]; then flags+=(--fail-on "$MCPR_ACTION_FAIL_ON"); fi
  local ignore
  ignore="$(printf '%s' "${MCPR_ACTION_IGNORE:-}" | tr -s ', \t\r\n' ',,,,,' | sed 's/^,//; s/,$//')"
  if [ -n "$ignore" ]; then flags+=(--ignore "$ignore"); fi
  echo "mcpr lint (fail-on ${MCPR_ACTION_FAIL_ON:-from mcpr.toml, else error}${ignore:+, ignoring $ignore}) against $(server_name)"
  gate lint lint.json "${flags[@]}"
}

# mcpr diff SNAPSHOT against the server, rendered as lint_server renders lint.
diff_server() {
  local -a flags=("$MCPR_ACTION_SNAPSHOT" "${SERVER_FLAGS[@]}")
  if [ "$MCPR_ACTION_ALLOW_BREAKING" = true ]; then flags+=(--allow-breaking); fi
  echo "mcpr diff $MCPR_ACTION_SNAPSHOT against $(server_name)"
  gate diff diff.json "${flags[@]}"
}

# Runs `mcpr KIND FLAGS… SERVER_TAIL` and reports it: annotations, the job summary, the
# `KIND-json` output, the worst exit code.
gate() { # KIND FILE FLAGS…
  local kind="$1" json="$REPORT_DIR/$2" err="$REPORT_DIR/$1.stderr" code=0
  shift 2
  if [ -z "$JQ" ]; then
    mcpr "$kind" "$@" --format github ${SERVER_TAIL[@]+"${SERVER_TAIL[@]}"} 2>"$err" || code=$?
    cat "$err" >&2
    printf '## %s mcpr %s: exit code %s\n\nInstall jq on the runner for a table here; the annotations list the details.\n\n' \
      "$(mark "$code")" "$kind" "$code" | summary
  else
    mcpr "$kind" "$@" --format json ${SERVER_TAIL[@]+"${SERVER_TAIL[@]}"} >"$json" 2>"$err" || code=$?
    cat "$err" >&2
    # (jq 1.6 accepts an empty file, which is what a server that failed leaves.)
    if [ -s "$json" ] && "$JQ" -e 'type == "object" and .version == 1' "$json" >/dev/null 2>&1; then
      # A jq that cannot render (too old) costs the table, not the verdict.
      "$JQ" -r --arg kind "$kind" "$JQ_DEFS"' if $kind == "lint" then lint_annotations else diff_annotations end' "$json" ||
        annotate warning "mcpr action" "$JQ could not render $json; see it in the reports"
      { "$JQ" -r --arg kind "$kind" "$JQ_DEFS"' if $kind == "lint" then lint_summary else diff_summary end' "$json" || true; } | summary
      output "$kind-json" "$json"
    else
      rm -f "$json"
    fi
  fi
  # Exit 2 and 3 (usage, a server that failed) come with no report: their message is
  # mcpr's stderr, repeated as an annotation so it reaches the pull request.
  if [ "$code" -ge 2 ]; then
    local message
    message="$(head -n 20 "$err")"
    annotate error "mcpr $kind" "mcpr $kind could not check the server (exit $code)${message:+: $message}"
    [ -z "$JQ" ] || printf '## ❌ mcpr %s: the server could not be checked (exit %s)\n\n```text\n%s\n```\n\n' \
      "$kind" "$code" "$message" | summary
  fi
  rm -f "$err"
  worst "$code"
}

mark() {
  if [ "$1" = 0 ]; then printf '✅'; else printf '❌'; fi
}

# The jq functions that turn `mcpr lint|diff --format json` (docs/lint.md) into workflow
# commands worded as mcpr's own `--format github`, and into the job summary's Markdown.
# shellcheck disable=SC2016 # jq's $variables
JQ_DEFS='
def data: gsub("%"; "%25") | gsub("\r"; "%0D") | gsub("\n"; "%0A");
def property: data | gsub(":"; "%3A") | gsub(","; "%2C");
def subject:
  if .kind == "resource" then "resource \(.name)"
  elif .kind == "resourceTemplate" then "template \(.name)"
  elif .kind == "prompt" then "prompt \(.name)"
  else .name end;
def command($level):
  "::\($level) \(if .file then "file=\(.file | property)," else "" end)\(if .line then "line=\(.line)," else "" end)title=\(.title | property)::\(.text | data)";
def count($n; $noun): if $n == 1 then "1 \($noun)" else "\($n) \($noun)s" end;
def cell: tostring | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
  | gsub("(?<c>[\\\\`*_\\[\\]|~])"; "\\\(.c)") | gsub("\r\n|\r|\n"; "<br>");
def mark: if .failed then "❌" else "✅" end;
def server: if .server == "" then "server" else .server end;

def lint_annotations:
  server as $server
  | (.findings[] | {title: "\(.code) \(subject) (\($server))", text: "\(subject): \(.message)"}
    as $f | (.level | if . == "info" then "notice" else . end) as $level
    | $f | command($level)),
  "\(server): \(count(.tools; "tool")), about \(count(.tokens; "token")) of definitions; \(count(.summary.errors; "error")), \(count(.summary.warnings; "warning")), \(.summary.info) info";

def lint_summary:
  "## \(mark) mcpr lint: \(server | cell), \(count(.summary.errors; "error")), \(count(.summary.warnings; "warning")), \(.summary.info) info",
  "",
  "Tools: \(.tools) · resources: \(.resources) · resource templates: \(.resourceTemplates) · prompts: \(.prompts) · about \(.tokens) tokens of tool definitions · fails on \(.failOn) or worse\(if (.ignored | length) > 0 then "; ignored: \(.ignored | join(", "))" else "" end).",
  "",
  if (.findings | length) == 0 then "No findings." else
    "| Level | Rule | Where | Finding |",
    "|---|---|---|---|",
    (.findings[] | "| \(.level) | \(.code) | \(subject | cell) | \(.message | cell) |")
  end,
  "";

def change_level($doc):
  if .breaking then (if $doc.allowBreaking then "warning" else "error" end)
  elif $doc.strict then "error" else "notice" end;
def change_title($doc):
  if .breaking then "breaking MCP change" elif $doc.strict then "MCP change" else "compatible MCP change" end;
def diff_heading:
  if (.changes | length) == 0 then "MCP tools match snapshot \(.snapshot)"
  else "MCP tools differ from snapshot \(.snapshot) (\(.breaking) breaking, \(.compatible) compatible):" end;

def diff_annotations:
  . as $doc
  | (.changes[] | {file: $doc.snapshot, line, title: "\(change_title($doc)) (\($doc.snapshot))", text: "\(subject): \(.message)"}
      as $c | change_level($doc) as $level | $c | command($level)),
    diff_heading;

def diff_summary:
  "## \(if .failed then "❌" elif .breaking > 0 then "⚠️" else "✅" end) mcpr diff: \(.breaking) breaking, \(.compatible) compatible changes from \(.snapshot | cell)",
  "",
  if (.changes | length) == 0 then "The server matches the snapshot." else
    (if .allowBreaking and .breaking > 0 then "Breaking changes are allowed (allow-breaking): reported, not failed.", "" else empty end),
    "| Change | Kind | Name | What changed |",
    "|---|---|---|---|",
    (.changes[] | "| \(if .breaking then "breaking" else "compatible" end) | \(.kind) | \(.name | cell) | \(.message | cell) |"),
    "",
    "Accept the changes with `mcpr snapshot -o \(.snapshot)` against the same server, then commit the file."
  end,
  "";
'

run_suites() {
  local -a suites=() extra=()
  # Suites and arguments are split on white space, as a shell would without quotes.
  read -r -d '' -a suites <<<"${MCPR_ACTION_SUITES:-.}" || true
  read -r -d '' -a extra <<<"${MCPR_ACTION_ARGS:-}" || true
  [ "${#suites[@]}" -gt 0 ] || suites=(.)
  local dir="$REPORT_DIR" code=0
  mcpr run "${suites[@]}" ${extra[@]+"${extra[@]}"} --format github \
    --junit "$dir/junit.xml" --html "$dir/report.html" --json "$dir/report.json" || code=$?
  for kind in junit:junit.xml html:report.html json:report.json; do
    if [ -f "$dir/${kind#*:}" ]; then
      output "${kind%%:*}" "$dir/${kind#*:}"
    fi
  done
  echo "mcpr run exited with $code"
  worst "$code"
}

# ---------------------------------------------------------------------------------------
# finish

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
