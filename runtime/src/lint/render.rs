//! The three output formats of `mcpr lint` and the rule list of `mcpr lint --rules`.

use mcpr_compiler::github::{self, Annotation};
use mcpr_compiler::names::count;
use serde_json::{Value, json};

use super::{Finding, Level, RULES, Report};

/// Lines of the human format are wrapped at this width, between the quoted items of a
/// list (`'<IMPORTANT>', 'read ~/.ssh'`), as mcptest prints them.
const WIDTH: usize = 100;
/// Continuation lines are indented this far.
const INDENT: usize = 30;

/// mcptest's format: one line per finding (`LEVEL   CODE NAME: message`), a blank line,
/// then `NAME: N tools, about T tokens of definitions; E errors, W warnings, I info` (each
/// noun in the number of its count: `1 tool`, `1 warning`).
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&wrap(&line(f)));
        out.push('\n');
    }
    if !report.findings.is_empty() {
        out.push('\n');
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// One finding as a human line (before wrapping).
pub fn line(f: &Finding) -> String {
    format!(
        "{:<7} {} {}: {}",
        f.level.as_str(),
        f.code,
        f.subject(),
        f.message
    )
}

/// The summary line.
pub fn summary(report: &Report) -> String {
    format!(
        "{}: {}, about {} of definitions; {}, {}, {} info",
        server_name(report),
        count(report.tools, "tool"),
        count(report.tokens, "token"),
        count(report.count(Level::Error), "error"),
        count(report.count(Level::Warning), "warning"),
        report.count(Level::Info)
    )
}

fn server_name(report: &Report) -> &str {
    if report.server.is_empty() {
        "server"
    } else {
        &report.server
    }
}

/// Breaks a line longer than [`WIDTH`] after a `,` that is followed by ` '`.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut first = true;
    loop {
        let room = if first { WIDTH } else { WIDTH - INDENT };
        if !first {
            out.push('\n');
            out.push_str(&" ".repeat(INDENT));
        }
        if rest.chars().count() <= room {
            out.push_str(rest);
            return out;
        }
        let breaks: Vec<usize> = rest.match_indices(", '").map(|(i, _)| i + 1).collect();
        let fitting = breaks
            .iter()
            .copied()
            .rfind(|&b| rest[..b].chars().count() <= room)
            .or_else(|| breaks.first().copied());
        match fitting {
            Some(b) => {
                out.push_str(&rest[..b]);
                rest = &rest[b + 1..];
                first = false;
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// The JSON format (see docs/lint.md): the counts, the findings in report order, the
/// summary and whether the run fails at `fail_on`.
pub fn json(report: &Report, fail_on: Level, ignored: &[String]) -> Value {
    json!({
        "version": 1,
        "server": report.server,
        "tools": report.tools,
        "resources": report.resources,
        "resourceTemplates": report.resource_templates,
        "prompts": report.prompts,
        "definitionChars": report.definition_chars,
        "tokens": report.tokens,
        "findings": report.findings,
        "summary": {
            "errors": report.count(Level::Error),
            "warnings": report.count(Level::Warning),
            "info": report.count(Level::Info),
        },
        "ignored": ignored,
        "failOn": fail_on,
        "failed": report.fails(fail_on),
    })
}

/// GitHub Actions workflow commands: `::error title=CODE NAME (SERVER)::message`
/// (`::warning`, `::notice` for info), then the summary line. A live server's definitions
/// have no file to point at, so the title names the server.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let level = match f.level {
            Level::Error => github::Level::Error,
            Level::Warning => github::Level::Warning,
            Level::Info => github::Level::Notice,
        };
        let annotation = Annotation::new(level, format!("{}: {}", f.subject(), f.message)).title(
            format!("{} {} ({})", f.code, f.subject(), server_name(report)),
        );
        out.push_str(&format!("{annotation}\n"));
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// `mcpr lint --rules`: code, level and what each rule catches.
pub fn rules() -> String {
    let mut out = String::new();
    for r in RULES {
        out.push_str(&format!(
            "{}  {:<7}  {}\n",
            r.code,
            r.level.as_str(),
            r.summary
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_between_quoted_items_as_mcptest_does() {
        let l = "error   MCP012 get_file: description says '<IMPORTANT>', 'Before using any tools, you must', 'read ~/.ssh', 'Do not tell the user'";
        assert_eq!(
            wrap(l),
            "error   MCP012 get_file: description says '<IMPORTANT>', 'Before using any tools, you must',\n                              'read ~/.ssh', 'Do not tell the user'"
        );
        assert_eq!(wrap("short"), "short");
        let unbreakable = "x".repeat(120);
        assert_eq!(wrap(&unbreakable), unbreakable);
    }
}
