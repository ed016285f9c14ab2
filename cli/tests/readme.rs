//! The README as a new user follows it: its example suite runs green against a server with
//! the `add` tool it describes, and its quick start — the commands as written, with the
//! server command swapped for a public server — works from a fresh folder (`--ignored`,
//! run by `.ci/run` with the interop servers installed).

mod common;
use common::{interop_dir, mcpr_in, output_text, repo_root};

use std::path::Path;

/// The README's text.
fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).expect("README.md")
}

/// The first fenced block of `lang` after the heading `heading`.
fn block(text: &str, heading: &str, lang: &str) -> String {
    let from = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no {heading:?}"));
    let rest = &text[from..];
    let open = format!("```{lang}\n");
    let start = rest.find(&open).expect("a fenced block") + open.len();
    let len = rest[start..].find("```").expect("the block ends");
    rest[start..start + len].to_string()
}

/// The server command the README's example and quick start name.
const THEIR_SERVER: &str = "python -m my_server";

/// Runs `mcpr ARGS` in `dir`; the output.
fn mcpr(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpr_in(dir)
        .args(args)
        .env("MCPR_NO_HISTORY", "1")
        .output()
        .expect("mcpr runs")
}

#[test]
fn the_example_suite_passes_against_a_server_with_its_add_tool() {
    let text = readme();
    let example = block(&text, "## Quick start", "mcpr");
    assert!(example.contains(THEIR_SERVER), "{example}");
    // conformance-tests/dist/tiny_server.py offers `add` as the example describes it.
    let server = format!(
        "python3 {}",
        repo_root()
            .join("conformance-tests/dist/tiny_server.py")
            .display()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("example.mcpr"),
        example.replace(THEIR_SERVER, &server),
    )
    .unwrap();
    let out = mcpr(dir.path(), &["run", "example.mcpr"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("2 passed, 0 failed"), "{shown}");
}

/// The quick start's commands, one per line, comments dropped.
fn quick_start_commands() -> Vec<String> {
    block(&readme(), "## Quick start", "sh")
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_quick_start_names_only_commands_mcpr_has() {
    let commands = quick_start_commands();
    assert!(commands.len() >= 2, "{commands:?}");
    for c in &commands {
        let word = c.split_whitespace().nth(1).unwrap_or_default();
        let help = mcpr(&repo_root(), &[word, "--help"]);
        assert!(help.status.success(), "{c}: {}", output_text(&help));
    }
}

#[test]
#[ignore = "needs the public servers of conformance-tests/interop/install.sh"]
fn the_quick_start_works_from_a_fresh_folder_against_a_public_server() {
    let server = interop_dir().join("venv/bin/mcp-server-time");
    let server = server.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    for command in quick_start_commands() {
        let words: Vec<String> = command
            .replace(THEIR_SERVER, &server)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        assert_eq!(words[0], "mcpr", "{command}");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let out = mcpr(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}: {}",
            output_text(&out)
        );
    }
    // mcp-server-time refuses init's placeholder time zones, so its starter tests expect
    // those errors; lint_interop holds init's values to account on servers that answer.
    let suite = std::fs::read_to_string(dir.path().join("tests/server.mcpr")).unwrap();
    assert!(suite.contains("Test: \"Tool get_current_time\""), "{suite}");
}
