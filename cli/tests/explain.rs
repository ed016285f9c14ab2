//! `mcpr explain` answers every kind of code: compile diagnostics, run-time codes and the
//! first implementation's retired codes, in any case; `--list` lists them all.

mod common;

use std::process::Output;

fn explain(args: &[&str]) -> Output {
    common::mcpr_bin()
        .arg("explain")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_run_time_code_prints_its_page() {
    let out = explain(&["MCP-EXIT-001"]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(
        page.starts_with("# MCP-EXIT-001: The server exited during the session\n"),
        "{page}"
    );
    assert!(page.contains("\nClass: errored"), "{page}");
    assert!(page.contains("## What to do"), "{page}");
    // Any case, surrounding blanks ignored.
    assert_eq!(stdout(&explain(&[" mcp-exit-001 "])), page);
}

#[test]
fn a_retired_code_lists_its_replacements() {
    let out = explain(&["QA-LANG-001"]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(page.starts_with("# QA-LANG-001:"), "{page}");
    let replaced = &page[page.find("## Replaced by").expect("a Replaced by section")..];
    for code in [
        "MCPLANG104",
        "MCPLANG204",
        "MCPLANG205",
        "MCPLANG416",
        "MCPLANG418",
    ] {
        assert!(replaced.contains(code), "{code} missing from:\n{replaced}");
    }
}

#[test]
fn a_code_with_two_meanings_describes_both() {
    let page = stdout(&explain(&["MCP-CONFIG-001"]));
    assert!(page.contains("\nClass: errored"), "{page}");
    let first = &page[page
        .find("## In the first implementation")
        .expect("the old meaning")..];
    assert!(
        first.contains("MCPLANG601") && first.contains("MCPLANG606"),
        "{first}"
    );
}

#[test]
fn an_unknown_code_names_the_families_and_exits_two() {
    let out = explain(&["MCP-NOPE-001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: `MCP-NOPE-001` is not a known code"),
        "{err}"
    );
    for family in ["MCPLANG102", "MCP-TIMEOUT-001", "QA-LANG-001", "--list"] {
        assert!(err.contains(family), "{family} missing from {err}");
    }
    let none = explain(&[]);
    assert_eq!(none.status.code(), Some(2), "a code or --list is required");
}

#[test]
fn list_shows_every_code_once_with_its_kind_and_title() {
    let out = explain(&["--list"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let find = |code: &str| {
        let hits: Vec<&&str> = lines
            .iter()
            .filter(|l| l.split_whitespace().next() == Some(code))
            .collect();
        assert_eq!(hits.len(), 1, "{code}: {hits:?}");
        hits[0].to_string()
    };
    assert!(
        find("MCPLANG204").contains("error") && find("MCPLANG204").ends_with("Unknown statement")
    );
    assert!(
        find("MCP-DEP-003").contains(" blocked ")
            && find("MCP-DEP-003").ends_with("A dependency did not pass")
    );
    assert!(find("QA-LANG-001").contains(" retired "));
    assert!(lines.len() > 200, "{} lines", lines.len());
}
