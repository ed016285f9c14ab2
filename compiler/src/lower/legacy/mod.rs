//! Lowering of legacy `.mcp` scripts (mcp-tester's scripting language, seed 000) into the
//! Suite IR: one script is one test whose steps are its commands, in order. A failing command
//! does not stop the script (`continueOnFailure`), and the test fails if any command failed.
//!
//! Script variables hold text, as in mcp-tester: `$name` becomes `${name}` in a template,
//! `set_var` saves text (`save-text`), and the checks of `assert_*` compare text. Commands that
//! check "the last response" become `check` steps without `params`; the runtime keeps the
//! response of the last command that talked to the server (docs/legacy-mcp.md).

mod actions;
mod checks;
mod client;
mod commands;
mod lex;
mod words;

use serde_json::{Map, json};

use crate::SourceMap;
use crate::diagnostics::problem::HeredocProblem;
use crate::diagnostics::{Collected, Diagnostic, Fix, Problem};
use crate::ir::{self, Assert, NativeStep, SourceLocation, Status, Step, StepKind, Suite, Test};
use crate::names::{edit_distance, slug};
use crate::source::Span;

use commands::Command;
use lex::{LexError, Line, Word};
use words::parse_ms;

/// What a number must look like for `assert_number` (a decimal with optional sign, fraction
/// and exponent, as Go's `ParseFloat` accepts for ordinary numbers).
pub const NUMBER_PATTERN: &str = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$";

/// Default wait of `wait_notification`, in milliseconds.
const DEFAULT_NOTIFICATION_WAIT_MS: u64 = 5000;

/// Longest timeout or duration accepted (10 minutes), as for every step deadline.
const MAX_MS: u64 = 600_000;

use crate::ir::sets::TASK_STATUSES;

/// The action of a command and the checks of a `check` step.
type Lowered = (StepKind, Option<Assert>);

/// Every command name, prefixes included (for suggestions and editors).
pub fn command_names() -> impl Iterator<Item = &'static str> {
    Command::ALL
        .iter()
        .map(|c| c.name())
        .chain(["expect_error", "timeout"])
}

/// The first line that shows a file is written in the MCP Test Language rather than as a
/// script: the header `MCP Test N`, or a `Suite:` or `Test:` line at the start of a line.
/// No script command starts that way.
fn test_language_line(text: &str) -> Option<(String, Span)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        let header = line
            .strip_prefix("MCP Test ")
            .is_some_and(|v| !v.is_empty() && v.trim().chars().all(|c| c.is_ascii_digit()));
        if header || line.starts_with("Suite:") || line.starts_with("Test:") {
            return Some((
                line.trim_end().to_string(),
                Span::new(start, start + line.len()),
            ));
        }
    }
    None
}

/// Lowers the script `entry` of `map`, keeping `keep` diagnostics worded ([`Collected`];
/// 0: all). The suite is `None` when there are errors.
pub fn compile(map: &SourceMap, entry: usize, keep: usize) -> (Option<Suite>, Collected) {
    let file = map.get(entry);
    let mut diags = Collected::new(keep);
    if let Some((line, span)) = test_language_line(file.text()) {
        // One diagnostic for the whole file, not one per line that is no command.
        diags.push(Diagnostic::new(
            Problem::LegacyTestLanguage { line },
            entry,
            span,
        ));
        return (None, diags);
    }
    let lexed = lex::lex(file.text());
    let mut l = Legacy {
        map,
        entry,
        diags,
        set: Vec::new(),
        roots: Vec::new(),
        root_added: false,
        roots_step: false,
        last_sender: None,
        dollar: false,
        path: std::sync::Arc::from(file.path()),
    };
    for e in &lexed.errors {
        let (problem, span) = match e {
            LexError::UnterminatedQuote { quote, span } => {
                (Problem::LegacyUnterminatedQuote { quote: *quote }, *span)
            }
            LexError::HeredocMarker { span } => (
                Problem::LegacyBadHeredoc {
                    reason: HeredocProblem::NoMarker,
                },
                *span,
            ),
            LexError::HeredocNotLast { span } => (
                Problem::LegacyBadHeredoc {
                    reason: HeredocProblem::NotLast,
                },
                *span,
            ),
            LexError::HeredocUnterminated { marker, span } => (
                Problem::LegacyBadHeredoc {
                    reason: HeredocProblem::Unterminated {
                        marker: marker.clone(),
                    },
                },
                *span,
            ),
        };
        l.report(problem, span);
    }
    let mut steps: Vec<Step> = Vec::new();
    for line in &lexed.lines {
        l.root_added = false;
        let Some(step) = l.line(line) else {
            l.roots_step = false;
            continue;
        };
        if l.root_added && l.roots_step {
            // A run of `add_root` lines is one step offering every root of the run.
            if let Some(StepKind::Native(n)) = steps.last_mut().map(|s| &mut s.kind)
                && let NativeStep::ConfigureClient(c) = n.as_mut()
                && let Some(roots) = c.behavior.as_mut().and_then(|b| b.roots.as_mut())
                && let Some(root) = l.roots.last()
            {
                roots.push(root.clone());
            }
            continue;
        }
        l.roots_step = l.root_added;
        steps.push(step);
    }
    if lexed.lines.is_empty() && lexed.errors.is_empty() {
        l.report(Problem::LegacyEmptyScript, Span::at(0));
    }
    let diags = l.diags;
    if diags.has_error() || steps.is_empty() {
        return (None, diags);
    }
    let name = script_name(file.path());
    let mut test = Test::new(name.clone(), steps);
    test.id = Some(slug(&name));
    test.continue_on_failure = Some(true);
    if l.dollar {
        let mut vars = Map::new();
        vars.insert("$".into(), json!("$"));
        test.variables = Some(vars);
    }
    let mut suite = Suite::without_target(vec![test]);
    suite.name = Some(name);
    let mut ext = Map::new();
    ext.insert(
        "io.modelcontextprotocol/ui".into(),
        json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
    );
    suite.client = Some(ir::ClientBehavior {
        prepared_answers_only: Some(true),
        extensions: Some(ext),
        ..Default::default()
    });
    (Some(suite), diags)
}

/// The file name without folders and without `.mcp`.
fn script_name(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match base.rsplit_once('.') {
        Some((stem, ext)) if ext.eq_ignore_ascii_case("mcp") && !stem.is_empty() => stem.into(),
        _ => base.into(),
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The prefixes written before a command.
struct Prefixes<'w> {
    /// `expect_error`.
    expect_error: Option<&'w Word>,
    /// `timeout MS`: the milliseconds and the `timeout` word.
    timeout: Option<(u64, &'w Word)>,
}

struct Legacy<'a> {
    map: &'a SourceMap,
    entry: usize,
    diags: Collected,
    /// Variables set so far by `set_var` / `input_var`.
    set: Vec<String>,
    /// Roots offered so far by `add_root`.
    roots: Vec<ir::Root>,
    /// Set by `add_root` when it lowered a line: the loop then extends the previous step
    /// when that was an `add_root` too (`roots_step`), so a run of N `add_root` lines costs
    /// O(N), not N lists of up to N roots.
    root_added: bool,
    /// The last lowered step is an `add_root` one that later `add_root` lines extend.
    roots_step: bool,
    /// The last command that talked to the server.
    last_sender: Option<Command>,
    /// Whether some template needs the `$` variable (a literal `${` in the script).
    dollar: bool,
    /// The script's path, shared by the locations of its steps.
    path: std::sync::Arc<str>,
}

impl Legacy<'_> {
    fn report(&mut self, problem: Problem, span: Span) {
        self.diags.push(Diagnostic::new(problem, self.entry, span));
    }

    fn bad(&mut self, command: &'static str, span: Span, reason: String, help: String) {
        self.report(
            Problem::LegacyBadArgument {
                command,
                reason,
                help,
            },
            span,
        );
    }

    fn location(&self, span: Span) -> SourceLocation {
        let p = self.map.get(self.entry).position(span.start as usize);
        SourceLocation::new(self.path.clone(), p.line, p.column)
    }

    /// The step of one script line, or `None` after reporting why there is none.
    fn line(&mut self, line: &Line) -> Option<Step> {
        let (prefixes, words) = self.prefixes(&line.words)?;
        let (head, args) = words.split_first()?;
        let command = self.command_word(head)?;
        let spec = command.spec();
        self.check_prefixes(command, &prefixes)?;
        self.check_count(command, head, args)?;
        self.check_vars(args);
        let (kind, assert) = self.command(command, args)?;
        let mut step = Step::new(kind);
        step.name = Some(line.text.clone());
        step.source = Some(self.location(line.span));
        step.timeout_ms = prefixes.timeout.map(|(ms, _)| ms);
        step.assert = assert.map(Box::new);
        if prefixes.expect_error.is_some() {
            step.assert.get_or_insert_with(Box::default).status = Some(Status::Error);
        }
        if spec.sends {
            self.last_sender = Some(command);
        }
        Some(step)
    }

    /// Reads the prefixes (`expect_error`, `timeout MS`) before the command of a line and
    /// returns them with the words from the command on.
    fn prefixes<'w>(&mut self, mut words: &'w [Word]) -> Option<(Prefixes<'w>, &'w [Word])> {
        let mut found = Prefixes {
            expect_error: None,
            timeout: None,
        };
        // The prefix read last, reported when no command follows.
        let mut last = None;
        while let Some(first) = words.first() {
            let text = if first.heredoc {
                String::new()
            } else {
                first.text()
            };
            if text == "expect_error" {
                found.expect_error = Some(first);
                words = &words[1..];
                last = Some(("expect_error", first.span));
            } else if text == "timeout" {
                let Some(value) = words.get(1) else {
                    self.misplaced("timeout", None, first.span);
                    return None;
                };
                let ms = match parse_ms(&value.text(), true) {
                    Some(ms) if !value.has_vars() => ms,
                    _ => {
                        let as_duration =
                            parse_ms(&value.text(), false).filter(|_| !value.has_vars());
                        let problem = Problem::LegacyBadTimeout {
                            text: value.raw.clone(),
                            prefix: true,
                            as_duration,
                        };
                        let mut d = Diagnostic::new(problem, self.entry, value.span);
                        if let Some(ms) = as_duration {
                            let fix = format!("write the timeout in milliseconds: {ms}");
                            d = d.with_fix(Fix::replace(value.span, ms.to_string(), fix));
                        }
                        self.diags.push(d);
                        return None;
                    }
                };
                found.timeout = Some((ms, first));
                words = &words[2..];
                last = Some(("timeout", first.span));
            } else {
                return Some((found, words));
            }
        }
        if let Some((prefix, span)) = last {
            self.misplaced(prefix, None, span);
        }
        None
    }

    /// The command a line's first word names, or a diagnostic with the nearest command.
    fn command_word(&mut self, head: &Word) -> Option<Command> {
        let name = head.text();
        let command = Command::parse(&name);
        if command.is_none() {
            let lower = name.to_lowercase();
            let len = lower.chars().count();
            // The distance is at least the difference in length: a megabyte-long word is
            // not compared with every command.
            let suggestion = command_names()
                .filter(|c| c.len().abs_diff(len) <= (c.len() / 3).max(2))
                .map(|c| (edit_distance(c, &lower), c))
                .filter(|(d, c)| *d <= (c.len() / 3).max(2))
                .min_by_key(|(d, _)| *d)
                .map(|(_, c)| c);
            self.report(
                Problem::LegacyUnknownCommand {
                    word: head.raw.clone(),
                    suggestion,
                },
                head.span,
            );
        }
        command
    }

    /// Prefixes need a command that talks to the server, but `expect_error` on a check
    /// expects the check to fail (mcp-tester's own scripts do this).
    fn check_prefixes(&mut self, command: Command, prefixes: &Prefixes<'_>) -> Option<()> {
        if command.spec().sends {
            return Some(());
        }
        let inverts = command.name().starts_with("assert_");
        for (prefix, w) in [
            ("expect_error", prefixes.expect_error.filter(|_| !inverts)),
            ("timeout", prefixes.timeout.map(|(_, w)| w)),
        ] {
            if let Some(w) = w {
                self.misplaced(prefix, Some(command), w.span);
                return None;
            }
        }
        Some(())
    }

    /// Reports a wrong number of arguments, at the extra ones when there are too many.
    fn check_count(&mut self, command: Command, head: &Word, args: &[Word]) -> Option<()> {
        let spec = command.spec();
        let too_many = spec.max.is_some_and(|m| args.len() > m);
        if args.len() >= spec.min && !too_many {
            return Some(());
        }
        let span = match spec.max {
            Some(max) if too_many => args[max].span.cover(args[args.len() - 1].span),
            _ => head.span,
        };
        self.report(
            Problem::LegacyArgumentCount {
                command: spec.name,
                usage: spec.usage,
                given: args.len(),
            },
            span,
        );
        None
    }

    fn misplaced(&mut self, prefix: &'static str, command: Option<Command>, span: Span) {
        self.report(
            Problem::LegacyMisplacedPrefix {
                prefix,
                command: command.map(|c| c.name().to_string()),
            },
            span,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_ms("500", true), Some(500));
        assert_eq!(parse_ms("2s", true), None);
        assert_eq!(parse_ms("2s", false), Some(2000));
        assert_eq!(parse_ms("1.5s", false), Some(1500));
        assert_eq!(parse_ms("250ms", false), Some(250));
        assert_eq!(parse_ms("1m", false), Some(60_000));
        assert_eq!(parse_ms("0", true), None);
        assert_eq!(parse_ms("11m", false), None);
        assert_eq!(parse_ms("2h", false), None);
        assert_eq!(parse_ms(".5s", false), None);
    }

    #[test]
    fn names() {
        assert_eq!(script_name("tests/01_simple.mcp"), "01_simple");
        assert_eq!(slug("01_simple"), "01-simple");
    }
}
