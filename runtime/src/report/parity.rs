//! Parity outputs: the live line per suite and target, the table of which tests behave
//! alike with the differences and a fingerprint per target (terminal), and the same as
//! Markdown for pull-request comments. The JSON form is written by [`super::json`].

use std::io::Write;
use std::path::PathBuf;

use super::terminal::summary_line;
use super::{Report, Reporter, paint};
use crate::files::{Access, write_atomic};
use crate::parity::ParityReport;
use crate::schedule::Event;
use mcpr_compiler::style;

/// The parity of a command on a terminal: a line as each suite starts on each target,
/// then each suite's table.
pub struct ParityTerminal<W: Write> {
    out: W,
    color: bool,
}

impl<W: Write> ParityTerminal<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W, color: bool) -> ParityTerminal<W> {
        ParityTerminal { out, color }
    }
}

impl<W: Write + Send> Reporter for ParityTerminal<W> {
    fn event(&mut self, event: &Event) {
        if let Event::RunStarted {
            suite,
            tests,
            target: Some(target),
            ..
        } = event
        {
            let _ = writeln!(
                self.out,
                "{} {suite} on {target} ({tests} test{})",
                paint(self.color, style::BOLD, "mcpr parity —"),
                if *tests == 1 { "" } else { "s" }
            );
        }
    }

    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        if let Report::Parity(suites) = report {
            for r in suites {
                let _ = write!(self.out, "{}", terminal(r, self.color));
            }
            let _ = self.out.flush();
        }
        Ok(())
    }
}

/// Writes the parity of a command as Markdown to a file when it ends.
#[derive(Debug)]
pub struct ParityMarkdown {
    path: PathBuf,
}

impl ParityMarkdown {
    /// A reporter writing `path`.
    pub fn new(path: PathBuf) -> ParityMarkdown {
        ParityMarkdown { path }
    }
}

impl Reporter for ParityMarkdown {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let Report::Parity(suites) = report else {
            return Ok(());
        };
        let text: String = suites.iter().map(markdown).collect();
        write_atomic(&self.path, text.as_bytes(), Access::Shared)
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
        paint(color, style::BOLD, "Parity of"),
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
            paint(color, style::GREEN, "=")
        } else {
            paint(color, style::RED, "≠")
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
        paint(color, style::GREEN, "parity")
    } else {
        paint(color, style::RED, "no parity")
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
