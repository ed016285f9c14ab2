//! The GitHub Action (`action.yml`, composite) and its entry script `action/entry.sh`, run
//! here as the runner runs them: the inputs as `MCPR_ACTION_*` variables, `GITHUB_OUTPUT`,
//! `GITHUB_PATH` and `GITHUB_STEP_SUMMARY` as files, the real mcpr and reference server.

mod common;
use common::reference_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    common::repo_root()
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

/// `bash action/entry.sh STEP` in the repository, with nothing of the caller's `MCPR_*`
/// or GitHub variables.
fn entry(step: &str) -> Command {
    let mut c = Command::new("bash");
    c.arg(root().join("action/entry.sh"))
        .arg(step)
        .current_dir(root())
        .env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("MCPR_") || k.starts_with("GITHUB_") {
            c.env_remove(k);
        }
    }
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    c.env("MCPR_NO_HISTORY", "1");
    c
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

/// install puts the given mcpr on `GITHUB_PATH`; run writes the reports, the annotations,
/// the job summary and the step's outputs and exits 0 so the reports are uploaded; finish
/// then fails with mcpr's exit code.
#[test]
fn entry_script_installs_runs_and_fails_the_job_after_the_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpr"));
    let github_path = tmp.path().join("path");
    let out = entry("install")
        .env("MCPR_ACTION_MCPR", &bin)
        .env("GITHUB_PATH", &github_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let dir = std::fs::read_to_string(&github_path).unwrap();
    assert_eq!(dir.trim(), bin.parent().unwrap().to_str().unwrap());
    assert!(
        text(&out).contains(&format!("mcpr {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        text(&out)
    );

    let out = entry("install")
        .env("MCPR_ACTION_MCPR", tmp.path().join("no-such-mcpr"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("::error title=mcpr action::input mcpr:"),
        "{}",
        text(&out)
    );

    let github_output = tmp.path().join("output");
    let summary = tmp.path().join("summary.md");
    let reports = tmp.path().join("reports");
    let path = format!(
        "{}:{}",
        dir.trim(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = entry("run")
        .env("PATH", &path)
        .env(
            "MCPR_ACTION_SUITES",
            "conformance-tests/runtime/lifecycle.mcpr\n",
        )
        .env(
            "MCPR_ACTION_ARGS",
            format!("--server {}  --no-history --jobs 2", reference_server()),
        )
        .env("MCPR_ACTION_REPORT_DIR", &reports)
        .env("GITHUB_OUTPUT", &github_output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the run step itself passes: {}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let located = stdout
        .lines()
        .filter(|l| l.starts_with("::error file=conformance-tests/runtime/lifecycle.mcpr,line="))
        .count();
    assert_eq!(located, 4, "{stdout}");
    let all = outputs(&github_output);
    assert_eq!(output(&all, "exit-code"), Some("1"), "{all:?}");
    let report_dir = reports.to_str().unwrap();
    assert_eq!(output(&all, "report-dir"), Some(report_dir));
    for (name, file) in [
        ("junit", "junit.xml"),
        ("html", "report.html"),
        ("json", "report.json"),
    ] {
        let p = reports.join(file);
        assert_eq!(output(&all, name), Some(p.to_str().unwrap()), "{all:?}");
        assert!(p.is_file(), "{}", p.display());
    }
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"10\"") && junit.contains("line=\"41\""),
        "{junit}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("## ❌ mcpr: 3 passed, 2 failed, 3 skipped, 2 blocked"),
        "{md}"
    );

    for (code, want) in [("0", 0), ("1", 1), ("3", 3), ("", 2)] {
        let out = entry("finish")
            .env("MCPR_ACTION_EXIT", code)
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

/// `action.yml` is a composite action whose every `inputs.X` is declared, whose steps run
/// the entry script's sub-commands with the variables it reads, and whose outputs are ones
/// the script writes.
#[test]
fn action_yml_matches_its_entry_script() {
    let yml = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let script = std::fs::read_to_string(root().join("action/entry.sh")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&yml).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().expect("inputs");
    for used in yml.split("inputs.").skip(1) {
        let name: String = used
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        assert!(inputs.contains_key(&name), "inputs.{name} is not declared");
    }
    let steps = action["runs"]["steps"].as_array().unwrap();
    let mut commands = Vec::new();
    for step in steps {
        if let Some(run) = step["run"].as_str() {
            assert_eq!(step["shell"], "bash", "{step}");
            let sub = run.rsplit(' ').next().unwrap();
            assert!(run.contains("/action/entry.sh"), "{run}");
            assert!(
                script.contains(&format!("\n{sub}() {{")),
                "entry.sh has no {sub} step"
            );
            commands.push(sub.to_string());
            for var in step["env"].as_object().into_iter().flat_map(|e| e.keys()) {
                assert!(
                    script.contains(&format!("${{{var}")),
                    "entry.sh never reads {var}"
                );
            }
        }
    }
    assert_eq!(commands, ["install", "run", "finish"]);
    for (name, out) in action["outputs"].as_object().unwrap() {
        let value = out["value"].as_str().unwrap();
        assert_eq!(value, format!("${{{{ steps.run.outputs.{name} }}}}"));
        // `output NAME …`, or the `NAME:FILE` list of the reports.
        let written =
            script.contains(&format!("output {name} ")) || script.contains(&format!(" {name}:"));
        assert!(written, "entry.sh never writes {name}");
    }
    for name in ["exit-code", "report-dir"] {
        assert!(script.contains(&format!("output {name} ")), "{name}");
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
