//! `mcpr fmt` and `mcpr check --fix` through the binary: files and folders written
//! atomically, `--check` and `--diff` writing nothing, standard input, refused files, the
//! example of docs/fmt.md, and fixes applied with what remains reported.

mod common;
use common::{assert_exit_with, mcpr_in, output_text, repo_root, scratch};

use std::io::Write;
use std::process::{Output, Stdio};

const MESSY: &str = "server:  node s.js\ntest:  \"x\"\n      call TOOL 'add'\n";
const CLEAN: &str = "Server: node s.js\n\nTest: \"x\"\n  Call tool \"add\"\n";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `mcpr fmt -` with `input` on standard input.
fn fmt_stdin(dir: &std::path::Path, args: &[&str], input: &str) -> Output {
    let mut child = mcpr_in(dir)
        .arg("fmt")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn fmt_checks_diffs_and_writes_files_and_folders() {
    let dir = scratch(&[
        ("suites/messy.mcpr", MESSY),
        ("suites/clean.mcpr", CLEAN),
        ("suites/notes.txt", "not a suite\n"),
    ]);
    let path = dir.path().join("suites/messy.mcpr");

    let out = mcpr_in(dir.path())
        .args(["fmt", "--check", "suites"])
        .output()
        .unwrap();
    assert_exit_with(
        &out,
        1,
        "1 file would be reformatted, 1 file already formatted",
    );
    assert_eq!(stdout(&out), "would reformat suites/messy.mcpr\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), MESSY);

    let out = mcpr_in(dir.path())
        .args(["fmt", "--diff", "suites"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let diff = stdout(&out);
    assert!(
        diff.starts_with("--- suites/messy.mcpr\n+++ suites/messy.mcpr\n"),
        "{diff}"
    );
    assert!(diff.contains("\n-      call TOOL 'add'\n"), "{diff}");
    assert!(diff.contains("\n+  Call tool \"add\"\n"), "{diff}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), MESSY);

    let out = mcpr_in(dir.path())
        .args(["fmt", "suites"])
        .output()
        .unwrap();
    assert_exit_with(&out, 0, "1 file reformatted, 1 file already formatted");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CLEAN);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("suites"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let out = mcpr_in(dir.path())
        .args(["fmt", "--check", "suites"])
        .output()
        .unwrap();
    assert_exit_with(
        &out,
        0,
        "0 files would be reformatted, 2 files already formatted",
    );
}

#[test]
fn fmt_reads_standard_input_and_refuses_broken_files() {
    let dir = scratch(&[("broken.mcpr", "Test: x\n  Frobnicate the server\n")]);
    let out = fmt_stdin(dir.path(), &[], MESSY);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(stdout(&out), CLEAN);
    let out = fmt_stdin(dir.path(), &["--check"], MESSY);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert_eq!(stdout(&out), "");
    let out = fmt_stdin(dir.path(), &["--check"], CLEAN);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));

    let out = mcpr_in(dir.path())
        .args(["fmt", "broken.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "MCPLANG204");
    assert_exit_with(
        &out,
        2,
        "broken.mcpr: not formatted: the file has 1 syntax error",
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("broken.mcpr")).unwrap(),
        "Test: x\n  Frobnicate the server\n"
    );
    let out = mcpr_in(dir.path())
        .args(["fmt", "missing.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "cannot read missing.mcpr");
}

#[test]
fn the_example_of_the_fmt_page_is_what_fmt_writes() {
    let page = std::fs::read_to_string(repo_root().join("docs/fmt.md")).unwrap();
    let blocks: Vec<&str> = page
        .split("```mcpr\n")
        .skip(1)
        .map(|b| &b[..b.find("```").unwrap()])
        .collect();
    assert!(blocks.len() >= 2, "docs/fmt.md has its before and after");
    let out = fmt_stdin(&repo_root(), &[], blocks[0]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(stdout(&out), blocks[1]);
}

#[test]
fn check_fix_applies_the_mechanical_fixes_and_reports_what_remains() {
    let text = "Server: node s.js\n\nFlow: \"Add numbers\"\n  Send \"ping\"\n\nTest: \"t\"\n  Depends on: othr\n  Use flow \"Add nmbers\"\n  Cal tool \"x\"\n\nTest: \"other\"\n  Id: other\n  Send \"ping\"\n  Frobnicate\n";
    let dir = scratch(&[("a.mcpr", text)]);
    let out = mcpr_in(dir.path())
        .args(["check", "--format", "json", "a.mcpr"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixes: Vec<&serde_json::Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["fix"].as_object().map(|_| &d["fix"]))
        .collect();
    assert_eq!(fixes.len(), 3, "{json:#}");
    assert_eq!(fixes[0]["edits"][0]["newText"], "other", "{json:#}");
    assert_eq!(
        fixes[0]["edits"][0]["range"],
        serde_json::json!({"start": {"line": 6, "character": 14}, "end": {"line": 6, "character": 18}})
    );
    let applicability: Vec<&str> = fixes
        .iter()
        .map(|f| f["applicability"].as_str().unwrap())
        .collect();
    assert_eq!(
        applicability,
        ["unsafe", "unsafe", "safe"],
        "a test id and a flow are the user's names, `Call tool` is the language's"
    );

    // The safe fix only; the renames of the user's names are counted and left.
    let out = mcpr_in(dir.path())
        .args(["check", "--fix", "a.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "1 problem fixed");
    assert_exit_with(&out, 2, "fixed a.mcpr:9: write `Call tool` (MCPLANG204)");
    assert_exit_with(
        &out,
        2,
        "2 unsafe fixes left: apply them with `--fix --unsafe-fixes`",
    );
    let fixed = std::fs::read_to_string(dir.path().join("a.mcpr")).unwrap();
    assert_eq!(fixed, text.replace("Cal tool", "Call tool"));
    let report = stdout(&out);
    assert!(report.contains("MCPLANG204"), "{report}");
    assert!(report.contains("Frobnicate"), "{report}");
    assert!(!report.contains("Cal tool"), "{report}");

    let out = mcpr_in(dir.path())
        .args(["check", "--unsafe-fixes", "a.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "--fix");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.mcpr")).unwrap(),
        fixed,
        "--unsafe-fixes alone changes nothing"
    );

    let out = mcpr_in(dir.path())
        .args(["check", "--fix", "--unsafe-fixes", "a.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "2 problems fixed");
    assert_exit_with(
        &out,
        2,
        "fixed a.mcpr:8: replace `Add nmbers` with `Add numbers` (MCPLANG401)",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("unsafe fix"), "{err}");
    let fixed = std::fs::read_to_string(dir.path().join("a.mcpr")).unwrap();
    assert_eq!(
        fixed,
        text.replace("othr", "other")
            .replace("Add nmbers", "Add numbers")
            .replace("Cal tool", "Call tool")
    );

    let out = mcpr_in(dir.path())
        .args(["check", "--fix", "a.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 2, "nothing to fix");
}

#[test]
fn fmt_and_check_fix_keep_the_mode_of_the_file_they_rewrite() {
    use std::os::unix::fs::PermissionsExt;
    let broken = "Server: node s.js\n\nTest: \"t\"\n  Cal tool \"x\"\n";
    let dir = scratch(&[("messy.mcpr", MESSY), ("broken.mcpr", broken)]);
    let mode_of = |name: &str| {
        std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    for (name, mode) in [("messy.mcpr", 0o600), ("broken.mcpr", 0o640)] {
        std::fs::set_permissions(dir.path().join(name), std::fs::Permissions::from_mode(mode))
            .unwrap();
    }
    let out = mcpr_in(dir.path())
        .args(["fmt", "messy.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 0, "1 file reformatted");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("messy.mcpr")).unwrap(),
        CLEAN
    );
    assert_eq!(
        mode_of("messy.mcpr"),
        0o600,
        "fmt keeps a private suite private"
    );

    let out = mcpr_in(dir.path())
        .args(["check", "--fix", "broken.mcpr"])
        .output()
        .unwrap();
    assert_exit_with(&out, 0, "1 problem fixed");
    assert!(
        std::fs::read_to_string(dir.path().join("broken.mcpr"))
            .unwrap()
            .contains("Call tool"),
    );
    assert_eq!(mode_of("broken.mcpr"), 0o640, "check --fix keeps the mode");
}
