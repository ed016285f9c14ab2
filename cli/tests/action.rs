//! The GitHub Action (`action.yml`, composite) and its entry script `action/entry.sh`, run
//! here as the runner runs them: the inputs as `MCPR_ACTION_*` variables, `GITHUB_OUTPUT`,
//! `GITHUB_PATH` and `GITHUB_STEP_SUMMARY` as files, `RUNNER_OS`/`RUNNER_ARCH` naming the
//! platform, a tool cache in a temporary folder, a fake release folder (built from the real
//! binary with `tar` and `sha256sum`) served as `file://` URLs through
//! `MCPR_ACTION_DOWNLOAD_BASE`, a fake `cargo` that records its arguments, and the real
//! mcpr, lint server and reference server.

mod common;
use common::{HttpServer, lint_server, reference_server};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The version the fake releases carry: the binary's own, so `mcpr --version` agrees.
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The one target with a release archive.
const TARGET: &str = "x86_64-unknown-linux-gnu";
/// A download base where nothing is.
const NOWHERE: &str = "file:///nonexistent/releases";

fn root() -> PathBuf {
    common::repo_root()
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mcpr_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpr"))
}

/// Asserts that `text` contains `want`, showing both when it does not.
fn has(text: &str, want: &str) {
    assert!(text.contains(want), "missing {want:?} in:\n{text}");
}

/// The step's stdout, after asserting that it passed.
fn passed(out: &Output) -> String {
    assert!(out.status.success(), "{}", text(out));
    stdout(out)
}

/// Asserts the step failed with exit 2 and the located error `::error title=mcpr
/// action::MESSAGE…`.
fn refused(out: &Output, message: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", text(out));
    has(
        &stdout(out),
        &format!("::error title=mcpr action::{message}"),
    );
}

/// `bash action/entry.sh STEP` in the repository, with nothing of the caller's `MCPR_*`,
/// GitHub or runner variables, and `vars`: an action input by its name (`fail-on` is
/// `MCPR_ACTION_FAIL_ON`), any other variable by its own (upper-case) name.
fn entry(step: &str, vars: &[(&str, &str)]) -> Command {
    let mut c = Command::new("bash");
    c.arg(root().join("action/entry.sh"))
        .arg(step)
        .current_dir(root())
        .env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("MCPR_") || k.starts_with("GITHUB_") || k.starts_with("RUNNER_") {
            c.env_remove(k);
        }
    }
    c.env_remove("CI");
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    c.env("MCPR_NO_HISTORY", "1");
    for (k, v) in vars {
        if k.chars().any(|c| c.is_ascii_lowercase()) {
            let name = k.to_ascii_uppercase().replace('-', "_");
            c.env(format!("MCPR_ACTION_{name}"), v);
        } else {
            c.env(k, v);
        }
    }
    c
}

/// `PATH` with `dirs` first.
fn path_with(dirs: &[&Path]) -> String {
    let mut all: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    all.push(std::env::var("PATH").unwrap_or_default());
    all.join(":")
}

/// `name=value` lines of a `GITHUB_OUTPUT` file.
fn outputs(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn output<'a>(all: &'a [(String, String)], name: &str) -> Option<&'a str> {
    all.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn write_executable(path: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

// ---------------------------------------------------------------------------------------
// install

/// A runner's folder: its tool cache, its `GITHUB_PATH` file, a `bin` folder for fakes.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        Runner {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn cache(&self) -> PathBuf {
        self.path("toolcache")
    }

    /// The tool-cache folder of VERSION on `arch` (`x64`, …).
    fn tool_dir(&self, arch: &str) -> PathBuf {
        self.cache().join("mcpr").join(VERSION).join(arch)
    }

    /// What the install step wrote to `GITHUB_PATH` (then emptied for the next step).
    fn take_github_path(&self) -> Option<String> {
        let file = self.path("github_path");
        let text = std::fs::read_to_string(&file).ok()?;
        std::fs::remove_file(&file).unwrap();
        Some(text.trim().to_string())
    }

    /// The install step on `os`/`arch` (as GitHub names them) with this runner's cache and
    /// `GITHUB_PATH`, the repository as the action's source, and `vars`.
    fn install(&self, os: &str, arch: &str, vars: &[(&str, &str)]) -> Output {
        let (source, cache) = (
            root().display().to_string(),
            self.cache().display().to_string(),
        );
        let mut all = vec![("source", source.as_str()), ("RUNNER_TOOL_CACHE", &cache)];
        all.extend_from_slice(vars);
        entry("install", &all)
            .env("RUNNER_OS", os)
            .env("RUNNER_ARCH", arch)
            .env("GITHUB_PATH", self.path("github_path"))
            .env("FAKE_CARGO_LOG", self.path("cargo.log"))
            .env("PATH", path_with(&[&self.path("bin")]))
            .output()
            .unwrap()
    }

    /// The arguments each call of the fake `cargo` got.
    fn cargo_calls(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.path("cargo.log")).unwrap_or_default();
        log.lines().map(str::to_string).collect()
    }

    /// A `cargo` first on PATH that records its arguments and, for `--root R`, writes an
    /// executable `R/bin/mcpr` printing `mcpr 0.0.0-cargo` (`FAKE_CARGO_FAIL=1`: fails).
    fn fake_cargo(&self) {
        write_executable(
            &self.path("bin/cargo"),
            r#"#!/bin/sh
echo "$*" >>"$FAKE_CARGO_LOG"
[ -z "$FAKE_CARGO_FAIL" ] || { echo "error: could not compile mcpr" >&2; exit 101; }
root=
while [ $# -gt 0 ]; do
  if [ "$1" = --root ]; then root="$2"; fi
  shift
done
mkdir -p "$root/bin"
printf '#!/bin/sh\necho "mcpr 0.0.0-cargo"\n' >"$root/bin/mcpr"
chmod +x "$root/bin/mcpr"
"#,
        );
    }
}

/// A release folder as the dist script makes it, in `dir`: `vVERSION/` holding
/// `mcpr-VERSION-TARGET.tar.gz` (one top folder with the real binary, the licences and the
/// README) and its `.sha256`; returns the `file://` download base.
fn fake_release(dir: &Path) -> String {
    let name = format!("mcpr-{VERSION}-{TARGET}");
    let stage = dir.join("stage");
    std::fs::create_dir_all(stage.join(&name)).unwrap();
    std::fs::copy(mcpr_bin(), stage.join(&name).join("mcpr")).unwrap();
    for file in ["LICENSE-MIT", "LICENSE-APACHE", "README.md"] {
        std::fs::write(stage.join(&name).join(file), "stand-in\n").unwrap();
    }
    let release = dir.join(format!("v{VERSION}"));
    std::fs::create_dir_all(&release).unwrap();
    // gzip -1: the debug binary is large and the level changes nothing the action reads.
    let script = r#"tar -cf - "$1" | gzip -1 >"$2/$1.tar.gz" && cd "$2" && sha256sum "$1.tar.gz" >"$1.tar.gz.sha256""#;
    let made = Command::new("sh")
        .args(["-c", script, "sh", &name])
        .arg(&release)
        .current_dir(&stage)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::remove_dir_all(&stage).unwrap();
    format!("file://{}", dir.display())
}

/// Download, checksum, tool cache, `GITHUB_PATH`; then the same version again with the
/// release gone is served from the cache, and a folder without its marker is not.
#[test]
fn install_downloads_checks_and_caches_the_release_then_hits_the_cache() {
    let runner = Runner::new();
    let base = fake_release(&runner.path("release"));
    let tag = format!("v{VERSION}");
    let vars = [
        ("MCPR_ACTION_DOWNLOAD_BASE", &*base),
        ("MCPR_ACTION_REF", &*tag),
    ];
    let log = passed(&runner.install("Linux", "X64", &vars));
    let dir = runner.tool_dir("x64");
    let bin = dir.join("mcpr");
    has(
        &log,
        &format!("mcpr version {VERSION} (from the action's ref)"),
    );
    has(&log, "sha256 checked: ");
    has(&log, &format!("mcpr: {} (mcpr {VERSION})", bin.display()));
    assert_eq!(runner.take_github_path().as_deref(), dir.to_str());
    assert!(dir.with_extension("complete").is_file(), "the marker");
    let version = Command::new(&bin).arg("--version").output().unwrap();
    assert_eq!(stdout(&version).trim(), format!("mcpr {VERSION}"));

    std::fs::remove_dir_all(runner.path("release")).unwrap();
    let log = passed(&runner.install("Linux", "X64", &vars));
    has(
        &log,
        &format!("mcpr {VERSION} is in the tool cache: {}", dir.display()),
    );
    assert!(!log.contains("downloaded"), "{log}");
    assert_eq!(runner.take_github_path().as_deref(), dir.to_str());

    // Without its marker the folder is a download cut short: fetched again (now gone).
    std::fs::remove_file(dir.with_extension("complete")).unwrap();
    let partial = runner.install("Linux", "X64", &vars);
    refused(&partial, &format!("could not download {base}/v{VERSION}/"));
}

/// A checksum that does not match, that names another file, or that is no checksum is
/// refused: a located error, nothing in the tool cache, nothing on `GITHUB_PATH`.
#[test]
fn install_refuses_a_checksum_mismatch_and_caches_nothing() {
    let runner = Runner::new();
    let base = fake_release(&runner.path("release"));
    let sums = runner
        .path("release")
        .join(format!("v{VERSION}/mcpr-{VERSION}-{TARGET}.tar.gz.sha256"));
    let good = std::fs::read_to_string(&sums).unwrap();
    let (hex, name) = good.trim().split_once("  ").unwrap();
    assert_eq!(hex.len(), 64, "{good}");
    let vars = [("MCPR_ACTION_DOWNLOAD_BASE", &*base), ("version", VERSION)];
    let file = format!("mcpr-{VERSION}-{TARGET}.tar.gz");
    for (bad, says) in [
        (
            format!("{}  {name}\n", "0".repeat(64)),
            format!("checksum mismatch: {file} has sha256 {hex}"),
        ),
        (
            format!("{hex}  other.tar.gz\n"),
            format!("{file}.sha256 is the checksum of 'other.tar.gz'"),
        ),
        (
            "not a checksum\n".to_string(),
            format!("{file}.sha256 holds no sha256 checksum"),
        ),
    ] {
        std::fs::write(&sums, &bad).unwrap();
        refused(&runner.install("Linux", "X64", &vars), &says);
        assert!(!runner.cache().join("mcpr").exists(), "cached after {bad}");
        assert_eq!(runner.take_github_path(), None);
    }
    std::fs::write(&sums, &good).unwrap();
    passed(&runner.install("Linux", "X64", &vars));
}

/// The version: the input (with or without `v`), else the action's ref when it is a
/// release tag, else `[workspace.package] version` of the action's Cargo.toml; the URL is
/// that version's asset under the download base, by default the releases of the action's
/// repository on `GITHUB_SERVER_URL`. Seen in the URL of a failed download.
#[test]
fn install_picks_the_version_and_the_release_url() {
    let runner = Runner::new();
    let source = runner.path("source");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(
        source.join("Cargo.toml"),
        "[package]\nversion = \"0.0.1\"\n\n[workspace.package] # the release\nedition = \"2024\"\nversion = \"7.8.9\"\n\n[dependencies]\nversion = \"1.0.0\"\n",
    )
    .unwrap();
    let asset = |v: &str| format!("/v{v}/mcpr-{v}-{TARGET}.tar.gz (curl: ");
    let source = source.to_str().unwrap();
    let cases: [(&[(&str, &str)], &str); 4] = [
        (&[("version", "v2.0.0"), ("ref", "v1.0.0")], "2.0.0"),
        (&[("ref", "v1.2.3")], "1.2.3"),
        (&[("ref", "main"), ("source", source)], "7.8.9"),
        (&[("ref", "")], VERSION),
    ];
    for (vars, version) in cases {
        let mut all = vars.to_vec();
        all.push(("MCPR_ACTION_DOWNLOAD_BASE", NOWHERE));
        let out = runner.install("Linux", "X64", &all);
        refused(
            &out,
            &format!("could not download {NOWHERE}{}", asset(version)),
        );
    }
    let out = runner.install(
        "Linux",
        "X64",
        &[
            ("version", "0.3.0"),
            ("repository", "someone/mcpr"),
            ("GITHUB_SERVER_URL", "file:///nonexistent/server"),
        ],
    );
    let url = "file:///nonexistent/server/someone/mcpr/releases/download";
    refused(&out, &format!("could not download {url}{}", asset("0.3.0")));
    let out = runner.install("Linux", "X64", &[("version", "latest")]);
    refused(&out, "input version: 'latest' is not a version");
}

/// A PATH folder holding every program of the current PATH but `missing`.
fn path_without(runner: &Runner, missing: &str) -> PathBuf {
    let dir = runner.path(&format!("path-without-{missing}"));
    std::fs::create_dir_all(&dir).unwrap();
    for folder in std::env::split_paths(&std::env::var_os("PATH").unwrap()) {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let link = dir.join(entry.file_name());
            if entry.file_name() != missing && !link.exists() {
                let _ = std::os::unix::fs::symlink(entry.path(), link);
            }
        }
    }
    dir
}

/// A runner without curl or sha256sum gets a located error naming the tool.
#[test]
fn install_names_a_missing_download_tool() {
    let runner = Runner::new();
    for tool in ["curl", "sha256sum"] {
        let out = entry("install", &[("version", VERSION)])
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TOOL_CACHE", runner.cache())
            .env("MCPR_ACTION_DOWNLOAD_BASE", NOWHERE)
            .env("PATH", path_without(&runner, tool))
            .output()
            .unwrap();
        refused(&out, &format!("{tool} is not installed on this runner"));
    }
}

/// `install: cargo`, and `auto` where no archive exists, run `cargo install` of the
/// action's source into the tool cache (a fake cargo here); `install: download` there is
/// refused; the `mcpr` input wins over both.
#[test]
fn install_falls_back_to_cargo_when_asked_or_when_no_archive_exists() {
    let runner = Runner::new();
    runner.fake_cargo();
    let cli = root().join("cli");
    let cargo_root = |arch: &str| format!("{}-cargo", runner.tool_dir(arch).display());
    let call = |arch: &str| {
        let (cli, root) = (cli.display(), cargo_root(arch));
        format!("install --locked --path {cli} --root {root}")
    };
    let auto = [("MCPR_ACTION_DOWNLOAD_BASE", NOWHERE), ("version", VERSION)];

    let log = passed(&runner.install("macOS", "ARM64", &auto));
    has(
        &log,
        "::notice title=mcpr action::no prebuilt mcpr archive exists for macOS/ARM64; building mcpr",
    );
    assert_eq!(runner.cargo_calls(), [call("arm64")]);
    let bin_dir = format!("{}/bin", cargo_root("arm64"));
    assert_eq!(runner.take_github_path(), Some(bin_dir.clone()));
    has(&log, &format!("mcpr: {bin_dir}/mcpr (mcpr 0.0.0-cargo)"));

    let cargo = [auto[0], auto[1], ("install", "cargo")];
    let log = passed(&runner.install("Linux", "X64", &cargo));
    assert_eq!(runner.cargo_calls()[1..], [call("x64")]);
    assert!(!log.contains("download"), "{log}");
    let marker = runner.tool_dir("x64").with_extension("complete");
    assert!(!marker.exists(), "a build is not marked as the release");
    passed(&runner.install("Windows", "X64", &auto));
    assert_eq!(runner.cargo_calls().len(), 3);

    let failing = [auto[0], ("install", "cargo"), ("FAKE_CARGO_FAIL", "1")];
    refused(&runner.install("Linux", "X64", &failing), "cargo install");
    let download = [auto[0], auto[1], ("install", "download")];
    refused(
        &runner.install("macOS", "ARM64", &download),
        "install: download, but no prebuilt mcpr archive exists for macOS/ARM64",
    );
    let bogus = [auto[0], auto[1], ("install", "pip")];
    refused(
        &runner.install("Linux", "X64", &bogus),
        "input install: 'pip' is not one of auto, download, cargo",
    );
    let calls = runner.cargo_calls().len();
    assert_eq!(calls, 4, "neither download nor a bad input builds");

    runner.take_github_path();
    let bin = mcpr_bin();
    let given = [
        auto[0],
        ("install", "cargo"),
        ("mcpr", bin.to_str().unwrap()),
    ];
    passed(&runner.install("macOS", "ARM64", &given));
    assert_eq!(runner.cargo_calls().len(), calls, "no build, no download");
    assert_eq!(
        runner.take_github_path().as_deref(),
        bin.parent().unwrap().to_str()
    );
}

// ---------------------------------------------------------------------------------------
// run: suites

/// install puts the given mcpr on `GITHUB_PATH`; run writes the reports, the annotations,
/// the job summary and the step's outputs and exits 0 so the reports are uploaded; finish
/// then fails with mcpr's exit code.
#[test]
fn entry_script_installs_runs_and_fails_the_job_after_the_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = mcpr_bin();
    let github_path = tmp.path().join("path");
    let out = entry("install", &[("mcpr", bin.to_str().unwrap())])
        .env("GITHUB_PATH", &github_path)
        .output()
        .unwrap();
    has(&passed(&out), &format!("(mcpr {VERSION})"));
    let dir = std::fs::read_to_string(&github_path).unwrap();
    assert_eq!(dir.trim(), bin.parent().unwrap().to_str().unwrap());
    let missing = tmp.path().join("no-such-mcpr");
    let out = entry("install", &[("mcpr", missing.to_str().unwrap())]).output();
    refused(&out.unwrap(), "input mcpr:");
    // A command name is looked up on PATH.
    let out = entry("install", &[("mcpr", "mcpr")])
        .env("PATH", path_with(&[bin.parent().unwrap()]))
        .output();
    has(
        &passed(&out.unwrap()),
        &format!("mcpr: {} (mcpr {VERSION})", bin.display()),
    );

    let github_output = tmp.path().join("output");
    let summary = tmp.path().join("summary.md");
    let reports = tmp.path().join("reports");
    let args = format!("--server {}  --no-history --jobs 2", reference_server());
    let out = entry(
        "run",
        &[
            ("suites", "conformance-tests/runtime/lifecycle.mcpr\n"),
            ("args", &args),
            ("report-dir", reports.to_str().unwrap()),
        ],
    )
    .env("PATH", path_with(&[Path::new(dir.trim())]))
    .env("GITHUB_OUTPUT", &github_output)
    .env("GITHUB_STEP_SUMMARY", &summary)
    .output()
    .unwrap();
    let log = passed(&out);
    let located = log
        .lines()
        .filter(|l| l.starts_with("::error file=conformance-tests/runtime/lifecycle.mcpr,line="))
        .count();
    assert_eq!(located, 4, "{log}");
    let all = outputs(&github_output);
    assert_eq!(output(&all, "exit-code"), Some("1"), "{all:?}");
    assert_eq!(output(&all, "report-dir"), reports.to_str());
    assert_eq!(output(&all, "lint-json"), None, "no server input, no lint");
    for (name, file) in [
        ("junit", "junit.xml"),
        ("html", "report.html"),
        ("json", "report.json"),
    ] {
        let p = reports.join(file);
        assert_eq!(output(&all, name), p.to_str(), "{all:?}");
        assert!(p.is_file(), "{}", p.display());
    }
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    has(&junit, "tests=\"10\"");
    has(&junit, "line=\"41\"");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("## ❌ mcpr: 3 passed, 2 failed, 3 skipped, 2 blocked"),
        "{md}"
    );

    for (code, want) in [("0", 0), ("1", 1), ("3", 3), ("", 2)] {
        let out = entry("finish", &[("MCPR_ACTION_EXIT", code)])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(want),
            "finish {code:?}: {}",
            text(&out)
        );
    }
}

// ---------------------------------------------------------------------------------------
// run: lint and diff

/// What one run step left: its log, outputs and job summary.
struct Step {
    out: Output,
    outputs: Vec<(String, String)>,
    summary: String,
}

impl Step {
    fn log(&self) -> String {
        stdout(&self.out)
    }

    fn output(&self, name: &str) -> Option<&str> {
        output(&self.outputs, name)
    }

    /// The `exit-code` output, after asserting that the step itself passed.
    fn exit_code(&self) -> &str {
        passed(&self.out);
        self.output("exit-code").expect("an exit-code output")
    }
}

/// The run step in `dir` (reports in `dir/reports`) with the real mcpr on PATH (after
/// `dir/bin`, where a test may put a fake one) and `vars`.
fn run_step(dir: &Path, vars: &[(&str, &str)]) -> Step {
    let bin = mcpr_bin();
    let mut all = vec![("report-dir", "reports")];
    all.extend_from_slice(vars);
    let out = entry("run", &all)
        .current_dir(dir)
        .env(
            "PATH",
            path_with(&[&dir.join("bin"), bin.parent().unwrap()]),
        )
        .env("GITHUB_OUTPUT", dir.join("github_output"))
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .output()
        .unwrap();
    let step = Step {
        out,
        outputs: outputs(&dir.join("github_output")),
        summary: std::fs::read_to_string(dir.join("summary.md")).unwrap_or_default(),
    };
    for file in ["github_output", "summary.md"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    step
}

/// The lint server in `mode` as a shell command (its path quoted).
fn lint_command(mode: &str) -> String {
    format!("'{}' {mode}", lint_server())
}

/// mcpr's own `--format github` output of `mcpr ARGS -- lint-server MODE` in `dir`.
fn mcpr_github(dir: &Path, args: &[&str], mode: &str) -> String {
    let out = common::mcpr_bin()
        .current_dir(dir)
        .args(args)
        .args(["--format", "github", "--", &lint_server(), mode])
        .output()
        .unwrap();
    stdout(&out)
}

/// Table rows of a job summary whose first cell is one of `firsts`.
fn rows(summary: &str, firsts: &[&str]) -> usize {
    let row = |l: &str| firsts.iter().any(|f| l.starts_with(&format!("| {f} |")));
    summary.lines().filter(|l| row(l)).count()
}

/// `command`: mcpr lint's findings as annotations worded as mcpr's own GitHub format, a
/// table in the job summary, lint.json in the reports, exit-code 1; no suites are run.
#[test]
fn lint_annotates_the_findings_and_tables_them_in_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let step = run_step(dir.path(), &[("command", &lint_command("defects"))]);
    assert_eq!(step.exit_code(), "1");
    let own = mcpr_github(dir.path(), &["lint"], "defects");
    assert_eq!(own.lines().count(), 31, "{own}");
    has(
        &own,
        "::error title=MCP021 resource lint%3A//nameless (lint-defects)::",
    );
    has(&step.log(), &own);
    let md = &step.summary;
    let heading = "## ❌ mcpr lint: lint-defects, 16 errors, 12 warnings, 2 info\n";
    assert!(md.starts_with(heading), "{md}");
    has(
        md,
        "\n| Level | Rule | Where | Finding |\n|---|---|---|---|\n",
    );
    has(
        md,
        "| error | MCP001 | bad name! | invalid tool name 'bad name!' |",
    );
    // Markdown and HTML in server text are shown, not interpreted.
    has(md, "| error | MCP008 | get\\_file |");
    has(md, "'&lt;IMPORTANT&gt;'");
    assert_eq!(rows(md, &["error", "warning", "info"]), 30, "{md}");
    assert_eq!(step.output("lint-json"), Some("reports/lint.json"));
    let json = std::fs::read(dir.path().join("reports/lint.json")).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(report["findings"].as_array().unwrap().len(), 30);
    assert_eq!(
        step.output("junit"),
        None,
        "no suites without the suites input"
    );
    assert_eq!(step.output("diff-json"), None);
}

/// `fail-on` and `ignore` (commas, spaces or lines) decide the exit code as in mcpr lint.
#[test]
fn lint_honours_fail_on_and_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let clean = lint_command("clean");
    let step = run_step(dir.path(), &[("command", &clean), ("fail-on", "info")]);
    assert_eq!(step.exit_code(), "0");
    assert!(
        step.summary
            .starts_with("## ✅ mcpr lint: lint-clean, 0 errors")
    );
    has(&step.summary, "No findings.");

    let defects = lint_command("defects");
    let errors = "MCP001, MCP002,MCP003 MCP008\nMCP012,MCP013,MCP014,MCP016,MCP017,MCP018,MCP020,MCP021,MCP025,MCP026,MCP029,MCP030";
    for (fail_on, want) in [("error", "0"), ("warning", "1")] {
        let vars = [
            ("command", &*defects),
            ("fail-on", fail_on),
            ("ignore", errors),
        ];
        let step = run_step(dir.path(), &vars);
        assert_eq!(step.exit_code(), want, "{fail_on}");
        assert!(!step.log().contains("::error"), "{}", step.log());
        has(
            &step.summary,
            "ignored: MCP001, MCP002, MCP003, MCP008, MCP012,",
        );
        assert_eq!(rows(&step.summary, &["error"]), 0, "{}", step.summary);
        assert_eq!(rows(&step.summary, &["warning", "info"]), 14);
    }
}

/// `snapshot`: mcpr diff's changes as annotations and a table; breaking changes fail,
/// and with `allow-breaking` are warnings that pass; the lint of the same server runs too.
#[test]
fn diff_fails_on_breaking_changes_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let snap = common::mcpr_bin()
        .current_dir(dir.path())
        .args(["snapshot", "-o", "tools.json", "--", &lint_server(), "v1"])
        .output()
        .unwrap();
    passed(&snap);
    let v2 = lint_command("v2");
    let vars = [("command", &*v2), ("snapshot", "tools.json")];
    let step = run_step(dir.path(), &vars);
    assert_eq!(step.exit_code(), "1");
    let own = mcpr_github(dir.path(), &["diff", "tools.json"], "v2");
    has(
        &own,
        "::error file=tools.json,line=24,title=breaking MCP change (tools.json)::add: ",
    );
    has(&step.log(), &own);
    let md = &step.summary;
    has(md, "## ✅ mcpr lint: versioned, 0 errors");
    has(
        md,
        "## ❌ mcpr diff: 9 breaking, 7 compatible changes from tools.json\n",
    );
    has(md, "| breaking | tool | add | new required parameter 'c' |");
    assert_eq!(rows(md, &["breaking"]), 9, "{md}");
    assert_eq!(rows(md, &["compatible"]), 7, "{md}");
    assert_eq!(step.output("diff-json"), Some("reports/diff.json"));
    assert_eq!(step.output("lint-json"), Some("reports/lint.json"));

    let step = run_step(dir.path(), &[vars[0], vars[1], ("allow-breaking", "true")]);
    assert_eq!(step.exit_code(), "0");
    let own = mcpr_github(
        dir.path(),
        &["diff", "tools.json", "--allow-breaking"],
        "v2",
    );
    has(
        &own,
        "::warning file=tools.json,line=24,title=breaking MCP change (tools.json)::add: ",
    );
    has(&step.log(), &own);
    assert!(!step.log().contains("::error"), "{}", step.log());
    has(&step.summary, "## ⚠️ mcpr diff: 9 breaking");
    has(&step.summary, "Breaking changes are allowed");

    let v1 = lint_command("v1");
    let same = run_step(dir.path(), &[("command", &v1), ("snapshot", "tools.json")]);
    assert_eq!(same.exit_code(), "0");
    has(&same.log(), "MCP tools match snapshot tools.json");
    has(&same.summary, "The server matches the snapshot.");
}

/// `working-directory` is where the command starts; a server that cannot start is exit 3
/// with mcpr's message as an annotation and in the summary, and no report.
#[test]
fn the_command_starts_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("server")).unwrap();
    std::os::unix::fs::symlink(lint_server(), dir.path().join("server/my-server")).unwrap();
    let command = ("command", "./my-server clean");
    let inside = run_step(dir.path(), &[command, ("working-directory", "server")]);
    assert_eq!(inside.exit_code(), "0");
    has(&inside.log(), "lint-clean: 2 tools");

    let outside = run_step(dir.path(), &[command]);
    assert_eq!(outside.exit_code(), "3");
    let failed = "::error title=mcpr lint::mcpr lint could not check the server (exit 3): ";
    has(&outside.log(), failed);
    has(
        &outside.summary,
        "## ❌ mcpr lint: the server could not be checked (exit 3)",
    );
    assert_eq!(outside.output("lint-json"), None, "no report");
}

/// `url` with `headers` (one per line, CRLF and blank lines allowed): the headers reach the
/// server and never the log; without them the server refuses (exit 3).
#[test]
fn url_and_headers_reach_an_http_server() {
    let dir = tempfile::tempdir().unwrap();
    let required = ["--require-header", "Authorization: Bearer s3cret"];
    let server = HttpServer::start(
        reference_server(),
        &[
            "--http",
            "127.0.0.1:0",
            required[0],
            required[1],
            required[0],
            "X-Team: qa",
        ],
    );
    let headers = "Authorization: Bearer s3cret\r\n\n  X-Team: qa  \n";
    let step = run_step(dir.path(), &[("url", &server.url), ("headers", headers)]);
    assert_eq!(step.exit_code(), "0");
    has(
        &step.summary,
        "## ✅ mcpr lint: mcpr-reference-server, 0 errors",
    );
    assert!(!text(&step.out).contains("s3cret"), "{}", text(&step.out));

    let refused = run_step(dir.path(), &[("url", &server.url)]);
    assert_eq!(refused.exit_code(), "3");
    has(&refused.log(), "::error title=mcpr lint::");
}

/// The inputs become mcpr's flags exactly (a fake mcpr records them); the command runs as
/// `sh -c` in the working directory; with suites too, both run.
#[test]
fn server_inputs_become_mcpr_flags() {
    let dir = tempfile::tempdir().unwrap();
    write_executable(
        &dir.path().join("bin/mcpr"),
        "#!/bin/sh\necho \"$*\" >>mcpr.log\n",
    );
    std::fs::write(dir.path().join("snap.json"), "{}").unwrap();
    std::fs::create_dir(dir.path().join("srv")).unwrap();
    let calls = |vars: &[(&str, &str)]| -> Vec<String> {
        assert_eq!(run_step(dir.path(), vars).exit_code(), "0");
        let log = std::fs::read_to_string(dir.path().join("mcpr.log")).unwrap();
        std::fs::remove_file(dir.path().join("mcpr.log")).unwrap();
        log.lines().map(str::to_string).collect()
    };
    let url = "http://127.0.0.1:9/mcp";
    let http = calls(&[
        ("url", url),
        ("headers", "A: 1\nB: two words\n"),
        ("timeout", "7"),
        ("fail-on", "warning"),
        ("ignore", "MCP005 MCP015,"),
        ("snapshot", "snap.json"),
        ("allow-breaking", "true"),
    ]);
    let reach = format!("--timeout 7 --url {url} --header A: 1 --header B: two words");
    assert_eq!(
        http,
        [
            format!("lint {reach} --fail-on warning --ignore MCP005,MCP015 --format json"),
            format!("diff snap.json {reach} --allow-breaking --format json"),
        ]
    );
    let stdio = calls(&[
        ("command", "python -m my_server --flag 'a b'"),
        ("working-directory", "srv"),
        ("suites", "tests/"),
        ("args", "--jobs 2"),
    ]);
    let shell = r#"sh -c cd -- "$1" && exec sh -c "$2" mcpr-server srv"#;
    let reports = "--junit reports/junit.xml --html reports/report.html --json reports/report.json";
    assert_eq!(
        stdio,
        [
            format!("lint --timeout 30 --format json -- {shell} python -m my_server --flag 'a b'"),
            format!("run tests/ --jobs 2 --format github {reports}"),
        ]
    );
}

/// Suites and a server together: both run, every report is written, the worst exit code
/// is the step's.
#[test]
fn suites_and_a_server_run_together_and_the_worst_code_wins() {
    let dir = tempfile::tempdir().unwrap();
    let suite = root().join("conformance-tests/runtime/lifecycle.mcpr");
    let args = format!("--server {} --no-history", reference_server());
    let crash = lint_command("crash");
    let vars = [
        ("command", &*crash),
        ("suites", suite.to_str().unwrap()),
        ("args", &args),
    ];
    let step = run_step(dir.path(), &vars);
    assert_eq!(step.exit_code(), "3");
    has(
        &step.summary,
        "## ❌ mcpr lint: the server could not be checked (exit 3)",
    );
    has(&step.summary, "## ❌ mcpr: 3 passed, 2 failed");
    assert_eq!(step.output("junit"), Some("reports/junit.xml"));
    has(&step.log(), "mcpr run exited with 1");
}

/// Inputs that cannot work are refused before anything runs, each with a located error
/// naming the input (and never a header's value).
#[test]
fn bad_server_inputs_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let lint = lint_command("clean");
    let cases = [
        (
            "url",
            "http://127.0.0.1:9/mcp",
            "inputs command and url: give one of them, not both",
        ),
        (
            "fail-on",
            "fatal",
            "input fail-on: 'fatal' is not one of error, warning, info",
        ),
        (
            "allow-breaking",
            "yes",
            "input allow-breaking: 'yes' is not true or false",
        ),
        (
            "timeout",
            "0",
            "input timeout: '0' is not a whole number of seconds",
        ),
        ("timeout", "30s", "input timeout: '30s' is not"),
        (
            "snapshot",
            "gone.json",
            "input snapshot: gone.json does not exist",
        ),
        (
            "working-directory",
            "nowhere",
            "input working-directory: nowhere is not a folder",
        ),
    ];
    for (input, value, message) in cases {
        let step = run_step(dir.path(), &[("command", &lint), (input, value)]);
        refused(&step.out, message);
        assert_eq!(step.output("exit-code"), None, "{input}");
        assert!(!dir.path().join("reports").exists(), "{input}");
    }
    let headers = "Authorization: Bearer s3cret\nBearer t0ken\n";
    let step = run_step(
        dir.path(),
        &[("url", "http://127.0.0.1:9/mcp"), ("headers", headers)],
    );
    refused(&step.out, "input headers: line 2 is not 'Name: value'");
    assert!(!text(&step.out).contains("t0ken"), "{}", text(&step.out));
}

/// Without jq the annotations are mcpr's own and the summary says why it has no table.
#[test]
fn without_jq_mcpr_writes_the_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let defects = lint_command("defects");
    let step = run_step(
        dir.path(),
        &[("command", &defects), ("MCPR_ACTION_JQ", "no-such-jq")],
    );
    assert_eq!(step.exit_code(), "1");
    has(
        &step.log(),
        "::warning title=mcpr action::jq is not installed",
    );
    has(&step.log(), &mcpr_github(dir.path(), &["lint"], "defects"));
    has(&step.summary, "## ❌ mcpr lint: exit code 1");
    assert_eq!(step.output("lint-json"), None);
}

// ---------------------------------------------------------------------------------------
// action.yml, the script and the page

/// The names after `marker` in `text`, as far as `allowed` characters go.
fn names_after(text: &str, marker: &str, allowed: fn(char) -> bool) -> Vec<String> {
    let name = |s: &str| s.chars().take_while(|c| allowed(*c)).collect::<String>();
    text.split(marker).skip(1).map(name).collect()
}

/// `action.yml` is a composite action whose inputs are all declared and all used, whose
/// steps run the entry script's sub-commands with variables it reads (and it reads no
/// other input variable), whose outputs are ones the script writes; docs/action.md
/// describes every input with its default, every output and the script's own variables.
#[test]
fn action_yml_matches_its_entry_script_and_its_page() {
    let yml = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let script = std::fs::read_to_string(root().join("action/entry.sh")).unwrap();
    let page = std::fs::read_to_string(root().join("docs/action.md")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&yml).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().expect("inputs");
    let input_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let used = names_after(&yml, "inputs.", input_char);
    for name in &used {
        assert!(inputs.contains_key(name), "inputs.{name} is not declared");
    }
    for (name, input) in inputs {
        assert!(used.contains(name), "input {name} is declared, never used");
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")));
        let row = row.unwrap_or_else(|| panic!("docs/action.md has no row for input {name}"));
        let default = input["default"].as_str().expect("a string default");
        if !default.is_empty() {
            has(row, &format!("`{default}`"));
        }
    }
    let mcptest = "command url headers fail-on ignore snapshot allow-breaking working-directory";
    for input in mcptest.split(' ').chain(["timeout"]) {
        assert!(inputs.contains_key(input), "mcptest's input {input}");
    }
    let steps = action["runs"]["steps"].as_array().unwrap();
    let mut commands = Vec::new();
    let mut passed = Vec::new();
    for step in steps.iter().filter(|s| s["run"].is_string()) {
        let run = step["run"].as_str().unwrap();
        assert_eq!(step["shell"], "bash", "{step}");
        has(run, "/action/entry.sh");
        let sub = run.rsplit(' ').next().unwrap();
        has(&script, &format!("\n{sub}() {{"));
        commands.push(sub.to_string());
        for var in step["env"].as_object().into_iter().flat_map(|e| e.keys()) {
            assert!(
                script.contains(&format!("${{{var}")),
                "entry.sh never reads {var}"
            );
            passed.push(var.clone());
        }
    }
    assert_eq!(commands, ["install", "run", "finish"]);
    // The script's own knobs, set by users (a mirror) or the tests, not by a step.
    let knobs = ["MCPR_ACTION_DOWNLOAD_BASE", "MCPR_ACTION_JQ"];
    for var in names_after(&script, "${", |c| c.is_ascii_alphanumeric() || c == '_') {
        let known = passed.contains(&var) || knobs.contains(&var.as_str());
        assert!(
            known || !var.starts_with("MCPR_ACTION_"),
            "no step passes {var}"
        );
    }
    for knob in knobs {
        has(&page, &format!("`{knob}`"));
    }
    for (name, out) in action["outputs"].as_object().unwrap() {
        let value = out["value"].as_str().unwrap();
        assert_eq!(value, format!("${{{{ steps.run.outputs.{name} }}}}"));
        // `output NAME …`, the `NAME:FILE` list of the reports, or `KIND-json` of `gate KIND`.
        let gate = name.strip_suffix("-json").is_some_and(|kind| {
            script.contains(&format!("\n  gate {kind} "))
                && script.contains("output \"$kind-json\" ")
        });
        let written = gate
            || script.contains(&format!("output {name} "))
            || script.contains(&format!(" {name}:"));
        assert!(written, "entry.sh never writes {name}");
        has(&page, &format!("`{name}`"));
    }
    for name in ["exit-code", "report-dir"] {
        has(&script, &format!("output {name} "));
    }
    let upload = steps
        .iter()
        .find(|s| s["uses"].is_string())
        .expect("an upload step");
    assert!(
        upload["uses"]
            .as_str()
            .unwrap()
            .starts_with("actions/upload-artifact@")
    );
    assert!(upload["if"].as_str().unwrap().contains("always()"));
}
