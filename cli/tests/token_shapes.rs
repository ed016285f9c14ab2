//! Token-shaped values are masked in every output, with or without a `Redact:` line: a real
//! reference server echoes each kind back (a GitHub, Slack, GitLab, OpenAI-style and AWS key),
//! a failing expectation puts it in `failure.actual`, and the terminal, the JSON report (with
//! transcripts), JUnit, the HTML report, the GitHub annotations and job summary are searched
//! for it.

mod common;
use common::{mcpr_in, reference_server, scratch};

/// One token of each well-known shape (made up, never valid anywhere).
fn tokens() -> Vec<String> {
    vec![
        format!("ghp_{}", "Zq7xR2mP9kLw".repeat(3)),
        "xoxb-2648390211-7421139582-Qm8rTz2KpLw9".to_string(),
        format!("glpat-{}", "Hx3nV8qR1tYb5mKp"),
        format!("sk-{}", "proj9Xa7Lm2Qw4Er6Ty8Ui"),
        "AKIAZ7Q3M9L2X8W4N6P1".to_string(),
    ]
}

fn suite(token: &str, redact: bool) -> String {
    let redact_line = if redact {
        format!("Redact: \"{token}\"\n")
    } else {
        String::new()
    };
    format!(
        "MCP Test 1\nSuite: \"Shapes\"\nServer: {server}\n{redact_line}\n\
         Test: \"Leaks in actual\"\n  Call tool \"echo\" with:\n    text: \"{token}\"\n  \
         Expect \"content[0].text\" equals \"something else\"\n\n\
         Test: \"Leaks in a structured actual\"\n  Call tool \"echo\" with:\n    text: \"{token}\"\n  \
         Expect \"content[0]\" equals {{type: text, text: other}}\n\n\
         Test: \"Leaks in a pattern\"\n  Call tool \"echo\" with:\n    text: \"{token}\"\n  \
         Expect \"content[0].text\" matches \"^nothing$\"\n",
        server = reference_server()
    )
}

#[test]
fn token_shapes_are_masked_in_every_output_with_or_without_redact() {
    for token in tokens() {
        for redact in [false, true] {
            let dir = scratch(&[("s.mcpr", &suite(&token, redact))]);
            let out = mcpr_in(dir.path())
                .args(["run", "s.mcpr", "--no-history", "--transcript"])
                .args(["--json", "r.json", "--junit", "r.xml", "--html", "r.html"])
                .args(["--format", "github"])
                .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
                .output()
                .expect("mcpr runs");
            assert_eq!(out.status.code(), Some(1), "{out:?}");
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap())
                    .unwrap();
            let tests = report["suites"][0]["tests"].as_array().unwrap();
            assert_eq!(tests.len(), 3);
            for t in tests {
                assert_eq!(t["status"], "failed", "{t:#}");
                assert!(
                    t["failure"]["actual"].to_string().contains("[REDACTED]"),
                    "{:#}",
                    t["failure"]
                );
            }
            let mut outputs = vec![
                ("stdout", String::from_utf8_lossy(&out.stdout).into_owned()),
                ("stderr", String::from_utf8_lossy(&out.stderr).into_owned()),
            ];
            for file in ["r.json", "r.xml", "r.html", "summary.md"] {
                outputs.push((
                    file,
                    std::fs::read_to_string(dir.path().join(file)).unwrap(),
                ));
            }
            let key = &token[..token.len() - 4];
            for (name, text) in &outputs {
                assert!(
                    !text.contains(key),
                    "{token} (Redact: {redact}) appears in {name}:\n{text}"
                );
            }
            assert!(
                outputs[0].1.contains("[REDACTED]"),
                "the terminal shows the mask"
            );
        }
    }
}
