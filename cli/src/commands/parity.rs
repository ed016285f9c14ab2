//! `mcpr parity FILE…` (and `mcpr run --compare`): each suite once per compare target, then
//! a table of which tests behave alike, the differences, and a fingerprint per target.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::args::{ColorArg, ParityArgs};
use crate::output::{self, SERVER_FAILURE};
use mcpr_runtime::auth::{TokenCache, resolve_credentials};
use mcpr_runtime::parity::{self, ParityReport};
use mcpr_runtime::report::terminal::summary_line;
use mcpr_runtime::schedule::{Event, RunOptions};

/// Exit code: some test behaves differently on some target.
const DIFFERENT: u8 = 1;

/// What a parity run needs from the command line.
pub struct Request {
    /// Suite files.
    pub files: Vec<PathBuf>,
    /// Most tests at once per target.
    pub jobs: Option<usize>,
    /// Test filter.
    pub test: Option<String>,
    /// JSON report path.
    pub json: Option<PathBuf>,
    /// Markdown report path.
    pub markdown: Option<PathBuf>,
    /// Colour choice.
    pub color: ColorArg,
}

/// `mcpr parity`.
pub fn parity(args: ParityArgs) -> u8 {
    run(Request {
        files: args.files,
        jobs: args.jobs,
        test: args.test,
        json: args.json,
        markdown: args.markdown,
        color: args.color,
    })
}

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Runs the parity of every file and returns the exit code.
pub fn run(req: Request) -> u8 {
    let mut suites = Vec::new();
    for f in &req.files {
        match super::run::load(f) {
            Ok(s) => suites.push(s),
            Err(e) => {
                eprintln!("error: {e}");
                return output::USAGE;
            }
        }
    }
    let mut opts = RunOptions {
        filter: req.test.clone(),
        ..RunOptions::default()
    };
    if let Some(j) = req.jobs {
        if j == 0 {
            eprintln!("error: --jobs must be at least 1");
            return output::USAGE;
        }
        opts.jobs = j;
    }
    let color = output::use_color(req.color);
    let outcome = output::block_on_interruptible(async {
        let mut reports = Vec::new();
        let mut tokens = TokenCache::new();
        for mut suite in suites {
            // Each compare target's `Token from` runs once, before any test.
            resolve_credentials(&mut suite, &opts.state, &mut tokens)
                .await
                .map_err(|e| (output::USAGE, format!("error: {e}")))?;
            let mut out = std::io::stdout();
            let mut on_event = |target: &str, e: &Event| {
                if let Event::RunStarted { suite, tests } = e {
                    let _ = writeln!(
                        out,
                        "{} {suite} on {target} ({tests} test{})",
                        paint(color, "1", "mcpr parity —"),
                        if *tests == 1 { "" } else { "s" }
                    );
                }
            };
            match parity::run_parity(Arc::new(suite), opts.clone(), &mut on_event).await {
                Ok(r) => reports.push(r),
                Err(e) => {
                    let code = if e.code.starts_with("MCP-INTERNAL") {
                        SERVER_FAILURE
                    } else {
                        output::USAGE
                    };
                    return Err((code, format!("error: {e}")));
                }
            }
        }
        Ok(reports)
    });
    let reports = match outcome {
        Err(code) => return code,
        Ok(Err((code, msg))) => {
            eprintln!("{msg}");
            return code;
        }
        Ok(Ok(r)) => r,
    };
    let mut stdout = std::io::stdout();
    for r in &reports {
        let _ = write!(stdout, "{}", terminal(r, color));
    }
    if let Some(path) = &req.json {
        let doc = serde_json::json!({ "schemaVersion": 1, "suites": reports });
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("error: cannot write {}: {e}", path.display());
            return SERVER_FAILURE;
        }
    }
    if let Some(path) = &req.markdown {
        let text: String = reports.iter().map(markdown).collect();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return SERVER_FAILURE;
        }
    }
    if reports.iter().all(|r| r.equivalent) {
        output::OK
    } else {
        DIFFERENT
    }
}

/// The terminal table of one suite's parity.
fn terminal(r: &ParityReport, color: bool) -> String {
    let mut out = String::new();
    let name_width = r
        .rows
        .iter()
        .map(|row| row.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let widths: Vec<usize> = r.targets.iter().map(|t| t.chars().count().max(7)).collect();
    out.push_str(&format!(
        "\n{} {} (baseline: {})\n    {:name_width$}",
        paint(color, "1", "Parity of"),
        r.suite_name,
        r.targets[0],
        "test"
    ));
    for (t, w) in r.targets.iter().zip(&widths) {
        out.push_str(&format!("  {t:w$}"));
    }
    out.push('\n');
    for row in &r.rows {
        let mark = if row.equivalent {
            paint(color, "32", "=")
        } else {
            paint(color, "31", "≠")
        };
        out.push_str(&format!("  {mark} {:name_width$}", row.name));
        for (s, w) in row.statuses.iter().zip(&widths) {
            out.push_str(&format!("  {s:w$}"));
        }
        out.push('\n');
        for d in &row.differences {
            for line in &d.lines {
                out.push_str(&format!("      {}: {line}\n", d.target));
            }
            if d.more > 0 {
                out.push_str(&format!(
                    "      {}: … {} more difference(s)\n",
                    d.target, d.more
                ));
            }
        }
    }
    for ((t, run), f) in r.targets.iter().zip(&r.runs).zip(&r.fingerprints) {
        out.push_str(&format!("  {t}: {} — {f}\n", summary_line(&run.summary)));
    }
    let agree = r.rows.iter().filter(|row| row.equivalent).count();
    let verdict = if r.equivalent {
        paint(color, "32", "parity")
    } else {
        paint(color, "31", "no parity")
    };
    out.push_str(&format!(
        "{verdict}: {agree} of {} test(s) behave alike on every target\n",
        r.rows.len()
    ));
    out
}

/// A Markdown section for one suite's parity (for pull-request comments).
fn markdown(r: &ParityReport) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!(
        "## Parity of {} (baseline: {})\n\n| | test |",
        esc(&r.suite_name),
        esc(&r.targets[0])
    );
    for t in &r.targets {
        out.push_str(&format!(" {} |", esc(t)));
    }
    out.push_str("\n|---|---|");
    for _ in &r.targets {
        out.push_str("---|");
    }
    out.push('\n');
    for row in &r.rows {
        out.push_str(&format!(
            "| {} | {} |",
            if row.equivalent { "=" } else { "≠" },
            esc(&row.name)
        ));
        for s in &row.statuses {
            out.push_str(&format!(" {s} |"));
        }
        out.push('\n');
    }
    let diffs: Vec<String> = r
        .rows
        .iter()
        .flat_map(|row| {
            row.differences.iter().flat_map(move |d| {
                d.lines
                    .iter()
                    .map(move |l| format!("{} on {}: {l}", row.name, d.target))
            })
        })
        .collect();
    if !diffs.is_empty() {
        out.push_str("\n```\n");
        for d in diffs {
            out.push_str(&d);
            out.push('\n');
        }
        out.push_str("```\n");
    }
    out.push('\n');
    for (t, f) in r.targets.iter().zip(&r.fingerprints) {
        out.push_str(&format!("- `{}`: `{f}`\n", esc(t)));
    }
    out.push('\n');
    out
}
