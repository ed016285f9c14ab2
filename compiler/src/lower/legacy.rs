//! Lowering of legacy `.mcp` scripts (mcp-tester's scripting language, seed 000) into the
//! Suite IR: one script is one test whose steps are its commands, in order. A failing command
//! does not stop the script (`continueOnFailure`), and the test fails if any command failed.
//!
//! Script variables hold text, as in mcp-tester: `$name` becomes `${name}` in a template,
//! `set_var` saves text (`save-text`), and the checks of `assert_*` compare text. Commands that
//! check "the last response" become `check` steps without `params`; the runtime keeps the
//! response of the last command that talked to the server (docs/legacy-mcp.md).

mod lex;

use serde_json::{Map, Value, json};

use crate::SourceMap;
use crate::diagnostics::problem::HeredocProblem;
use crate::diagnostics::{Diagnostic, Problem};
use crate::ir::{
    self, Assert, Assertion, JsonAssertions, NativeAction, NativeStep, RequestStep, SourceLocation,
    Status, Step, StepKind, Suite, TaskMode, Test, ToolStep,
};
use crate::names::{edit_distance, slug};
use crate::source::Span;

use lex::{LexError, Line, Piece, Word};

/// What a number must look like for `assert_number` (a decimal with optional sign, fraction
/// and exponent, as Go's `ParseFloat` accepts for ordinary numbers).
pub const NUMBER_PATTERN: &str = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$";

/// Default wait of `wait_notification`, in milliseconds.
const DEFAULT_NOTIFICATION_WAIT_MS: u64 = 5000;

/// Longest timeout or duration accepted (10 minutes), as for every step deadline.
const MAX_MS: u64 = 600_000;

/// One command of the language: name, argument counts, usage, and whether it talks to the
/// server (only those take `expect_error` and `timeout`).
struct Command {
    name: &'static str,
    min: usize,
    max: Option<usize>,
    usage: &'static str,
    sends: bool,
}

const fn cmd(
    name: &'static str,
    min: usize,
    max: Option<usize>,
    usage: &'static str,
    sends: bool,
) -> Command {
    Command {
        name,
        min,
        max,
        usage,
        sends,
    }
}

const COMMANDS: &[Command] = &[
    cmd("echo", 0, None, "echo [text…]", false),
    cmd(
        "call_tool",
        1,
        None,
        "call_tool <tool> [value…] [name:value…]",
        true,
    ),
    cmd(
        "call_tool_raw",
        1,
        Some(2),
        "call_tool_raw <tool> '<json object>'",
        true,
    ),
    cmd("ping", 0, Some(0), "ping", true),
    cmd("logging", 1, Some(1), "logging <level>", true),
    cmd("set_var", 2, Some(2), "set_var <name> <path>", false),
    cmd(
        "input_var",
        1,
        Some(2),
        "input_var <name> [\"prompt\"]",
        false,
    ),
    cmd(
        "assert_contains",
        1,
        Some(2),
        "assert_contains [value] <expected>",
        false,
    ),
    cmd(
        "assert_equals",
        1,
        Some(2),
        "assert_equals [value] <expected>",
        false,
    ),
    cmd("assert_number", 1, Some(1), "assert_number <value>", false),
    cmd("assert_gt", 2, Some(2), "assert_gt <value> <than>", false),
    cmd(
        "assert_string_length",
        3,
        Some(3),
        "assert_string_length <value> <min> <max>",
        false,
    ),
    cmd("assert_tool_error", 0, Some(0), "assert_tool_error", false),
    cmd(
        "assert_error_code",
        1,
        Some(1),
        "assert_error_code <code|tool>",
        false,
    ),
    cmd(
        "complete",
        2,
        Some(3),
        "complete <prompt:name|resource:uri> <argument> [value]",
        true,
    ),
    cmd(
        "elicit_response",
        1,
        Some(2),
        "elicit_response <accept|decline|cancel> ['<json object>']",
        false,
    ),
    cmd(
        "sample_response",
        1,
        Some(1),
        "sample_response <text>",
        false,
    ),
    cmd("add_root", 1, Some(2), "add_root <uri> [name]", false),
    cmd(
        "assert_elicited",
        1,
        Some(1),
        "assert_elicited <text>",
        false,
    ),
    cmd("assert_sampled", 1, Some(1), "assert_sampled <text>", false),
    cmd("subscribe", 1, Some(1), "subscribe <uri>", true),
    cmd(
        "wait_notification",
        1,
        Some(3),
        "wait_notification <kind> [uri] [duration]",
        true,
    ),
    cmd(
        "call_task",
        1,
        None,
        "call_task <tool> [value…] [name:value…]",
        true,
    ),
    cmd(
        "start_task",
        1,
        None,
        "start_task <tool> [value…] [name:value…]",
        true,
    ),
    cmd("wait_task", 1, Some(2), "wait_task <id> [duration]", true),
    cmd(
        "wait_task_status",
        2,
        Some(3),
        "wait_task_status <id> <status> [duration]",
        true,
    ),
    cmd("get_task", 1, Some(1), "get_task <id>", true),
    cmd("cancel_task", 1, Some(1), "cancel_task <id>", true),
    cmd(
        "assert_task_status",
        1,
        Some(1),
        "assert_task_status <status>",
        false,
    ),
    cmd("list_skills", 0, Some(0), "list_skills", true),
    cmd("verify_skills", 0, Some(0), "verify_skills", true),
    cmd("verify_apps", 0, Some(0), "verify_apps", true),
];

/// Every command name, prefixes included (for suggestions and editors).
pub fn command_names() -> impl Iterator<Item = &'static str> {
    COMMANDS
        .iter()
        .map(|c| c.name)
        .chain(["expect_error", "timeout"])
}

/// Lowers the script `entry` of `map`. The suite is `None` when there are errors.
pub fn compile(map: &SourceMap, entry: usize) -> (Option<Suite>, Vec<Diagnostic>) {
    let file = map.get(entry);
    let lexed = lex::lex(file.text());
    let mut l = Legacy {
        map,
        entry,
        diags: Vec::new(),
        set: Vec::new(),
        roots: Vec::new(),
        last_sender: None,
        dollar: false,
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
    let mut steps = Vec::new();
    for line in &lexed.lines {
        if let Some(step) = l.line(line) {
            steps.push(step);
        }
    }
    if lexed.lines.is_empty() && lexed.errors.is_empty() {
        l.report(Problem::LegacyEmptyScript, Span::at(0));
    }
    let mut diags = l.diags;
    crate::diagnostics::sort(&mut diags);
    if diags.iter().any(Diagnostic::is_error) || steps.is_empty() {
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

struct Legacy<'a> {
    map: &'a SourceMap,
    entry: usize,
    diags: Vec<Diagnostic>,
    /// Variables set so far by `set_var` / `input_var`.
    set: Vec<String>,
    /// Roots offered so far by `add_root`.
    roots: Vec<ir::Root>,
    /// The last command that talked to the server.
    last_sender: Option<&'static str>,
    /// Whether some template needs the `$` variable (a literal `${` in the script).
    dollar: bool,
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

    /// The template of a word: text as it is (a literal `${` written `${$}{`), each
    /// `$name` as `${name}`.
    fn template_of(&mut self, pieces: &[Piece]) -> String {
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Text(t) => out.push_str(&self.escape(t)),
                Piece::Var { name, .. } => {
                    out.push_str("${");
                    out.push_str(name);
                    out.push('}');
                }
            }
        }
        out
    }

    fn escape(&mut self, text: &str) -> String {
        if text.contains("${") {
            self.dollar = true;
            text.replace("${", "${$}{")
        } else {
            text.to_string()
        }
    }

    fn template(&mut self, word: &Word) -> Value {
        Value::String(self.template_of(&word.pieces))
    }

    /// A word that must be read at compile time (a number, a name, a path): its text, or a
    /// diagnostic when it holds a variable.
    fn literal(&mut self, command: &'static str, word: &Word, what: &str) -> Option<String> {
        if word.has_vars() {
            self.bad(
                command,
                word.span,
                format!("the {what} is read before the script runs, so it cannot hold a variable"),
                format!("write the {what} itself instead of `{}`", word.raw),
            );
            return None;
        }
        Some(word.text())
    }

    fn check_vars(&mut self, words: &[Word]) {
        for w in words {
            let found: Vec<(String, Span)> = w.vars().map(|(n, s)| (n.to_string(), s)).collect();
            for (name, span) in found {
                if !self.set.contains(&name) {
                    let suggestion = self
                        .set
                        .iter()
                        .map(|s| (edit_distance(s, &name), s))
                        .filter(|(d, s)| *d <= (s.len() / 3).max(1))
                        .min_by_key(|(d, _)| *d)
                        .map(|(_, s)| s.clone());
                    self.report(Problem::LegacyVariableNotSet { name, suggestion }, span);
                }
            }
        }
    }

    fn location(&self, span: Span) -> SourceLocation {
        let file = self.map.get(self.entry);
        let p = file.position(span.start as usize);
        SourceLocation::new(file.path(), p.line, p.column)
    }

    fn line(&mut self, line: &Line) -> Option<Step> {
        let mut words: &[Word] = &line.words;
        let mut expect_error: Option<&Word> = None;
        let mut timeout: Option<(u64, &Word)> = None;
        loop {
            let first = &words[0];
            let text = if first.heredoc {
                String::new()
            } else {
                first.text()
            };
            if text == "expect_error" {
                expect_error = Some(first);
                words = &words[1..];
            } else if text == "timeout" {
                let Some(value) = words.get(1) else {
                    self.report(
                        Problem::LegacyMisplacedPrefix {
                            prefix: "timeout",
                            command: None,
                        },
                        first.span,
                    );
                    return None;
                };
                let ms = match parse_ms(&value.text(), true) {
                    Some(ms) if !value.has_vars() => ms,
                    _ => {
                        self.report(
                            Problem::LegacyBadTimeout {
                                text: value.raw.clone(),
                                what: "timeout in milliseconds",
                            },
                            value.span,
                        );
                        return None;
                    }
                };
                timeout = Some((ms, first));
                words = &words[2..];
            } else {
                break;
            }
            if words.is_empty() {
                let (prefix, span) = match (timeout, expect_error) {
                    (Some((_, w)), _)
                        if expect_error.is_none_or(|e| e.span.start < w.span.start) =>
                    {
                        ("timeout", w.span)
                    }
                    (_, Some(e)) => ("expect_error", e.span),
                    (Some((_, w)), None) => ("timeout", w.span),
                    (None, None) => unreachable!("a prefix was read"),
                };
                self.report(
                    Problem::LegacyMisplacedPrefix {
                        prefix,
                        command: None,
                    },
                    span,
                );
                return None;
            }
        }
        let head = &words[0];
        let args = &words[1..];
        let name_text = head.text();
        let Some(command) = COMMANDS.iter().find(|c| c.name == name_text) else {
            let suggestion = command_names()
                .map(|c| (edit_distance(c, &name_text.to_lowercase()), c))
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
            return None;
        };
        if !command.sends {
            // `expect_error` on a check expects the check to fail (mcp-tester's own scripts
            // do this); every other prefix needs a command that talks to the server.
            let inverts = command.name.starts_with("assert_");
            for (prefix, w) in [
                ("expect_error", expect_error.filter(|_| !inverts)),
                ("timeout", timeout.map(|(_, w)| w)),
            ] {
                if let Some(w) = w {
                    self.report(
                        Problem::LegacyMisplacedPrefix {
                            prefix,
                            command: Some(command.name.to_string()),
                        },
                        w.span,
                    );
                    return None;
                }
            }
        }
        if args.len() < command.min || command.max.is_some_and(|m| args.len() > m) {
            let span = if args.len() > command.max.unwrap_or(usize::MAX) {
                let extra = &args[command.max.unwrap_or(0)..];
                extra[0].span.cover(extra[extra.len() - 1].span)
            } else {
                head.span
            };
            self.report(
                Problem::LegacyArgumentCount {
                    command: command.name,
                    usage: command.usage,
                    given: args.len(),
                },
                span,
            );
            return None;
        }
        self.check_vars(args);
        let kind = self.command(command.name, head, args)?;
        let mut step = Step::new(kind.0);
        step.name = Some(line.text.clone());
        step.source = Some(self.location(line.span));
        if let Some((ms, _)) = timeout {
            step.timeout_ms = Some(ms);
        }
        if let Some(a) = kind.1 {
            step.assert = Some(a);
        }
        if expect_error.is_some() {
            step.assert.get_or_insert_with(Assert::default).status = Some(Status::Error);
        }
        if command.sends {
            self.last_sender = Some(command.name);
        }
        Some(step)
    }

    /// The action (and the checks of a `check` step) of one command.
    fn command(
        &mut self,
        name: &'static str,
        head: &Word,
        args: &[Word],
    ) -> Option<(StepKind, Option<Assert>)> {
        let native = |n: NativeStep| (StepKind::native(n), None);
        Some(match name {
            "echo" => {
                let parts: Vec<String> = args.iter().map(|w| self.template_of(&w.pieces)).collect();
                native(NativeStep::Echo(ir::EchoAction {
                    timeout_ms: None,
                    message: Some(parts.join(" ")),
                }))
            }
            "call_tool" | "call_task" | "start_task" => {
                let mut tool = self.tool_call(&args[0], &args[1..])?;
                tool.task = match name {
                    "call_task" => Some(TaskMode::Run),
                    "start_task" => Some(TaskMode::Start),
                    _ => None,
                };
                (StepKind::Tool(tool), None)
            }
            "call_tool_raw" => {
                let tool_name = self.template_of(&args[0].pieces);
                let arguments = match args.get(1) {
                    Some(w) => match self.json_object(w) {
                        Ok(o) => o,
                        Err(reason) => {
                            self.bad(
                                name,
                                w.span,
                                format!("the arguments are not a JSON object: {reason}"),
                                "write the arguments as one quoted JSON object, e.g. '{\"a\": 1}'"
                                    .into(),
                            );
                            return None;
                        }
                    },
                    None => Map::new(),
                };
                let mut tool = ToolStep::new(tool_name);
                tool.arguments = Some(arguments);
                (StepKind::Tool(tool), None)
            }
            "ping" => (
                StepKind::Request(RequestStep {
                    method: "ping".into(),
                    params: None,
                }),
                None,
            ),
            "logging" => {
                let level = self.literal(name, &args[0], "log level")?;
                const LEVELS: [&str; 8] = [
                    "debug",
                    "info",
                    "notice",
                    "warning",
                    "error",
                    "critical",
                    "alert",
                    "emergency",
                ];
                if !LEVELS.contains(&level.as_str()) {
                    self.bad(
                        name,
                        args[0].span,
                        format!("`{level}` is not a log level"),
                        format!("use one of {}", LEVELS.join(", ")),
                    );
                    return None;
                }
                native(NativeStep::SetLogLevel(ir::LogLevelAction {
                    level: Some(level),
                    timeout_ms: None,
                }))
            }
            "set_var" => {
                let var = self.variable_name(name, &args[0])?;
                let path = self.literal(name, &args[1], "path")?;
                let Some(paths) = self.response_paths(&path) else {
                    self.bad(
                        name,
                        args[1].span,
                        format!("`{path}` is not a path"),
                        "write `rawResponse`, `structuredContent.a.b`, `$.a.b` or `a.0.b`".into(),
                    );
                    return None;
                };
                self.set.push(var.clone());
                native(NativeStep::SaveText(ir::SaveTextAction {
                    params: Some(Value::Array(paths.into_iter().map(Value::String).collect())),
                    timeout_ms: None,
                    variable: Some(var),
                }))
            }
            "input_var" => {
                let var = self.variable_name(name, &args[0])?;
                let message = args.get(1).map(|w| self.template_of(&w.pieces));
                self.set.push(var.clone());
                native(NativeStep::Prompt(ir::PromptAction {
                    timeout_ms: None,
                    message,
                    variable: Some(var),
                }))
            }
            "assert_contains" | "assert_equals" => {
                let (subject, expected) = match args {
                    [x] => (None, x),
                    [v, x] => (Some(v), x),
                    _ => unreachable!("counted"),
                };
                let expected = self.template(expected);
                let mut a = Assertion::default();
                let params = match subject {
                    None => {
                        a.path = Some(
                            if name == "assert_contains" {
                                "$.textAndRaw"
                            } else {
                                "$.text"
                            }
                            .into(),
                        );
                        None
                    }
                    Some(v) => {
                        a.path = Some("$".into());
                        Some(self.template(v))
                    }
                };
                if name == "assert_contains" {
                    a.contains = Some(expected);
                } else {
                    a.equals = Some(expected);
                }
                check(params, a)
            }
            "assert_number" => {
                let v = self.template(&args[0]);
                check(
                    Some(v),
                    Assertion {
                        path: Some("$".into()),
                        matches: Some(NUMBER_PATTERN.into()),
                        ..Assertion::default()
                    },
                )
            }
            "assert_gt" => {
                let v = self.template(&args[0]);
                let than = self.template(&args[1]);
                check(
                    Some(v),
                    Assertion {
                        path: Some("$".into()),
                        greater_than: Some(than),
                        ..Assertion::default()
                    },
                )
            }
            "assert_string_length" => {
                let v = self.template(&args[0]);
                let mut bounds = [0u64; 2];
                for (i, w) in args[1..].iter().enumerate() {
                    let text = self.literal(name, w, "length")?;
                    match text.parse::<u64>() {
                        Ok(n) => bounds[i] = n,
                        Err(_) => {
                            self.bad(
                                name,
                                w.span,
                                format!("`{text}` is not a whole number of characters"),
                                "write the bounds as whole numbers, e.g. `1 64`".into(),
                            );
                            return None;
                        }
                    }
                }
                if bounds[0] > bounds[1] {
                    self.bad(
                        name,
                        args[1].span.cover(args[2].span),
                        format!(
                            "the least length {} is greater than the greatest {}",
                            bounds[0], bounds[1]
                        ),
                        "write the smaller bound first".into(),
                    );
                    return None;
                }
                check(
                    Some(v),
                    Assertion {
                        path: Some("$".into()),
                        min_length: Some(bounds[0]),
                        max_length: Some(bounds[1]),
                        ..Assertion::default()
                    },
                )
            }
            "assert_tool_error" => tool_error_check(),
            "assert_error_code" => {
                let text = self.literal(name, &args[0], "error code")?;
                if text == "tool" {
                    tool_error_check()
                } else {
                    let Ok(code) = text.parse::<i64>() else {
                        self.bad(
                            name,
                            args[0].span,
                            format!("`{text}` is neither a JSON-RPC error code nor `tool`"),
                            "write a whole number such as `-32602`, or `tool` for a tool error"
                                .into(),
                        );
                        return None;
                    };
                    check(
                        None,
                        Assertion {
                            path: Some("$.error.code".into()),
                            equals: Some(json!(code)),
                            ..Assertion::default()
                        },
                    )
                }
            }
            "complete" => {
                let reference = args[0].text();
                let r = if let Some(p) = args[0]
                    .pieces
                    .first()
                    .and_then(|p| match p {
                        Piece::Text(t) => Some(t),
                        Piece::Var { .. } => None,
                    })
                    .filter(|t| t.starts_with("prompt:") || t.starts_with("resource:"))
                {
                    let kind_is_prompt = p.starts_with("prompt:");
                    let mut pieces = args[0].pieces.clone();
                    if let Some(Piece::Text(t)) = pieces.first_mut() {
                        let cut = if kind_is_prompt { 7 } else { 9 };
                        *t = t[cut..].to_string();
                    }
                    let value = self.template_of(&pieces);
                    if kind_is_prompt {
                        json!({"type": "ref/prompt", "name": value})
                    } else {
                        json!({"type": "ref/resource", "uri": value})
                    }
                } else {
                    self.bad(
                        name,
                        args[0].span,
                        format!("`{reference}` names neither a prompt nor a resource"),
                        "write `prompt:NAME` or `resource:URI`".into(),
                    );
                    return None;
                };
                let argument = self.template(&args[1]);
                let value = match args.get(2) {
                    Some(w) => self.template(w),
                    None => json!(""),
                };
                (
                    StepKind::Request(RequestStep {
                        method: "completion/complete".into(),
                        params: Some(json!({
                            "ref": r,
                            "argument": {"name": argument, "value": value},
                        })),
                    }),
                    None,
                )
            }
            "elicit_response" => {
                let action = self.literal(name, &args[0], "action")?;
                if !["accept", "decline", "cancel"].contains(&action.as_str()) {
                    self.bad(
                        name,
                        args[0].span,
                        format!("`{action}` is not an answer to an elicitation"),
                        "write `accept`, `decline` or `cancel`".into(),
                    );
                    return None;
                }
                let mut answer = json!({"action": action});
                if let Some(w) = args.get(1) {
                    if action != "accept" {
                        self.bad(
                            name,
                            w.span,
                            format!("only `accept` carries content, not `{action}`"),
                            "remove the content, or answer `accept`".into(),
                        );
                        return None;
                    }
                    match self.json_object(w) {
                        Ok(o) => answer["content"] = Value::Object(o),
                        Err(reason) => {
                            self.bad(
                                name,
                                w.span,
                                format!("the content is not a JSON object: {reason}"),
                                "write the content as one quoted JSON object, e.g. '{\"confirm\": true}'"
                                    .into(),
                            );
                            return None;
                        }
                    }
                }
                native(queue_answer("elicitation/create", answer))
            }
            "sample_response" => {
                let answer = json!({"text": self.template(&args[0])});
                native(queue_answer("sampling/createMessage", answer))
            }
            "add_root" => {
                let uri = self.template_of(&args[0].pieces);
                let name = args.get(1).map(|w| self.template_of(&w.pieces));
                self.roots
                    .push(ir::Root::Named(ir::NamedRoot { uri, name }));
                // Every root added so far: the behaviour replaces the list.
                native(NativeStep::ConfigureClient(ir::ConfigureClientAction {
                    behavior: Some(ir::ClientBehavior {
                        roots: Some(self.roots.clone()),
                        ..Default::default()
                    }),
                    timeout_ms: None,
                }))
            }
            "assert_elicited" | "assert_sampled" => {
                let text = self.template(&args[0]);
                check(
                    None,
                    Assertion {
                        path: Some(
                            if name == "assert_elicited" {
                                "$.elicited"
                            } else {
                                "$.sampled"
                            }
                            .into(),
                        ),
                        contains: Some(text),
                        ..Assertion::default()
                    },
                )
            }
            "subscribe" => native(NativeStep::Subscribe(ir::ResourceAction {
                uri: Some(self.template_of(&args[0].pieces)),
                timeout_ms: None,
            })),
            "wait_notification" => {
                let kind = self.literal(name, &args[0], "notification kind")?;
                let method = if kind.starts_with("notifications/") {
                    kind
                } else {
                    format!("notifications/{kind}")
                };
                let mut n = ir::AwaitNotificationAction {
                    method: Some(method),
                    ..Default::default()
                };
                let mut rest = &args[1..];
                // The last argument is a duration when it reads as one.
                let mut wait = DEFAULT_NOTIFICATION_WAIT_MS;
                if let Some(last) = rest.last()
                    && (rest.len() == 2 || looks_like_duration(&last.text()))
                {
                    match parse_ms(&last.text(), false).filter(|_| !last.has_vars()) {
                        Some(ms) => wait = ms,
                        None => {
                            self.report(
                                Problem::LegacyBadTimeout {
                                    text: last.raw.clone(),
                                    what: "duration",
                                },
                                last.span,
                            );
                            return None;
                        }
                    }
                    rest = &rest[..rest.len() - 1];
                }
                if let Some(uri) = rest.first() {
                    n.params = Some(json!({"uri": self.template(uri)}));
                }
                n.timeout_ms = Some(wait);
                native(NativeStep::AwaitNotification(n))
            }
            "wait_task" | "wait_task_status" => {
                let mut n = ir::TaskWaitAction {
                    task_id: Some(self.template_of(&args[0].pieces)),
                    ..Default::default()
                };
                let mut rest = &args[1..];
                if name == "wait_task_status" {
                    let status = self.literal(name, &rest[0], "task status")?;
                    if !TASK_STATUSES.contains(&status.as_str()) {
                        self.bad(
                            name,
                            rest[0].span,
                            format!("`{status}` is not a task status"),
                            format!("use one of {}", TASK_STATUSES.join(", ")),
                        );
                        return None;
                    }
                    n.status = Some(status);
                    rest = &rest[1..];
                }
                if let Some(d) = rest.first() {
                    match parse_ms(&d.text(), false).filter(|_| !d.has_vars()) {
                        Some(ms) => n.timeout_ms = Some(ms),
                        None => {
                            self.report(
                                Problem::LegacyBadTimeout {
                                    text: d.raw.clone(),
                                    what: "duration",
                                },
                                d.span,
                            );
                            return None;
                        }
                    }
                }
                native(NativeStep::TaskWait(n))
            }
            "get_task" | "cancel_task" => {
                let task = ir::TaskAction {
                    params: None,
                    task_id: Some(self.template_of(&args[0].pieces)),
                    timeout_ms: None,
                };
                native(if name == "get_task" {
                    NativeStep::TaskGet(task)
                } else {
                    NativeStep::TaskCancel(task)
                })
            }
            "assert_task_status" => {
                let status = self.literal(name, &args[0], "task status")?;
                if !TASK_STATUSES.contains(&status.as_str()) {
                    self.bad(
                        name,
                        args[0].span,
                        format!("`{status}` is not a task status"),
                        format!("use one of {}", TASK_STATUSES.join(", ")),
                    );
                    return None;
                }
                check(
                    None,
                    Assertion {
                        path: Some("$.task.status".into()),
                        equals: Some(json!(status)),
                        ..Assertion::default()
                    },
                )
            }
            "list_skills" => native(NativeStep::new(NativeAction::SkillsList)),
            "verify_skills" => native(NativeStep::new(NativeAction::SkillsVerify)),
            "verify_apps" => native(NativeStep::new(NativeAction::AppsVerify)),
            other => unreachable!("command {other} ({:?}) has no lowering", head.raw),
        })
    }

    fn variable_name(&mut self, command: &'static str, word: &Word) -> Option<String> {
        let text = word.text();
        if word.has_vars() || !is_name(&text) {
            self.bad(
                command,
                word.span,
                format!("`{}` is not a variable name", word.raw),
                "write the name without `$`: letters, digits and `_`, not starting with a digit"
                    .into(),
            );
            return None;
        }
        Some(text)
    }

    /// The candidate result paths of a `set_var` path, first present wins.
    fn response_paths(&self, path: &str) -> Option<Vec<String>> {
        if path == "rawResponse" {
            return Some(vec!["$".into()]);
        }
        let after_complete = self.last_sender == Some("complete");
        let convert = |p: &str| -> Option<String> {
            let mut out = String::from("$");
            for seg in p.split('.') {
                if seg.is_empty() {
                    return None;
                }
                if seg.chars().all(|c| c.is_ascii_digit()) {
                    out.push_str(&format!("[{seg}]"));
                } else if seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    out.push('.');
                    out.push_str(seg);
                } else if !seg.contains('"') {
                    out.push_str(&format!("[\"{seg}\"]"));
                } else {
                    return None;
                }
            }
            Some(out)
        };
        let mut out = Vec::new();
        if let Some(rest) = path.strip_prefix("$.") {
            if after_complete {
                out.push(convert(&format!("completion.{rest}"))?);
            }
            out.push(convert(&format!("structuredContent.{rest}"))?);
            out.push(convert(rest)?);
        } else if path.starts_with("structuredContent.") {
            out.push(convert(path)?);
        } else {
            if after_complete {
                out.push(convert(&format!("completion.{path}"))?);
            }
            out.push(convert(path)?);
        }
        Some(out)
    }

    /// The arguments of `call_tool` and the task commands: `name:value` words are named,
    /// everything else (quoted names, `http://…`, heredoc bodies) is positional.
    fn tool_call(&mut self, tool: &Word, args: &[Word]) -> Option<ToolStep> {
        let mut named = Map::new();
        let mut positional = Vec::new();
        let mut seen: Vec<(String, Span)> = Vec::new();
        for w in args {
            match named_key(w) {
                Some(key) => {
                    if seen.iter().any(|(k, _)| *k == key) {
                        self.report(
                            Problem::LegacyDuplicateArgument { name: key.clone() },
                            w.span,
                        );
                        return None;
                    }
                    let mut pieces = w.pieces.clone();
                    if let Some(Piece::Text(t)) = pieces.first_mut() {
                        *t = t[key.len() + 1..].to_string();
                    }
                    if pieces.len() > 1
                        && matches!(pieces.first(), Some(Piece::Text(t)) if t.is_empty())
                    {
                        pieces.remove(0);
                    }
                    let value = self.template_of(&pieces);
                    seen.push((key.clone(), w.span));
                    named.insert(key, Value::String(value));
                }
                None => {
                    let value = self.template(w);
                    positional.push(value);
                }
            }
        }
        let mut step = ToolStep::new(self.template_of(&tool.pieces));
        if !named.is_empty() {
            step.arguments = Some(named);
        }
        if !positional.is_empty() {
            step.positional = Some(positional);
        }
        step.coerce = Some(true);
        Some(step)
    }

    /// Parses a word holding a JSON object; `$name` inside a JSON string becomes `${name}`,
    /// outside a string it becomes the string `"${name}"`.
    fn json_object(&mut self, word: &Word) -> Result<Map<String, Value>, String> {
        let mut text = String::new();
        let mut in_string = false;
        let mut escaped = false;
        for p in &word.pieces {
            match p {
                Piece::Text(t) => {
                    for c in t.chars() {
                        if in_string {
                            if escaped {
                                escaped = false;
                            } else if c == '\\' {
                                escaped = true;
                            } else if c == '"' {
                                in_string = false;
                            }
                        } else if c == '"' {
                            in_string = true;
                        }
                    }
                    text.push_str(&self.escape(t));
                }
                Piece::Var { name, .. } => {
                    if in_string {
                        text.push_str(&format!("${{{name}}}"));
                    } else {
                        text.push_str(&format!("\"${{{name}}}\""));
                    }
                }
            }
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(other) => Err(format!(
                "it is {}",
                match other {
                    Value::Array(_) => "an array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "null",
                }
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

const TASK_STATUSES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

/// A `queue-answer` step queueing `answer` for the next server request of `method`.
fn queue_answer(method: &str, answer: Value) -> NativeStep {
    NativeStep::QueueAnswer(ir::QueueAnswerAction {
        method: Some(method.into()),
        params: Some(answer),
        timeout_ms: None,
    })
}

fn check(params: Option<Value>, a: Assertion) -> (StepKind, Option<Assert>) {
    let n = NativeStep::Check(ir::CheckAction {
        params,
        timeout_ms: None,
    });
    (
        StepKind::native(n),
        Some(Assert {
            json: Some(JsonAssertions::List(vec![a])),
            ..Assert::default()
        }),
    )
}

fn tool_error_check() -> (StepKind, Option<Assert>) {
    check(
        None,
        Assertion {
            path: Some("$.isError".into()),
            equals: Some(json!(true)),
            ..Assertion::default()
        },
    )
}

/// The argument name of a `name:value` word: an unquoted name at its start followed by `:`,
/// where the value does not start with `//` (so `http://…` stays positional).
fn named_key(w: &Word) -> Option<String> {
    if w.heredoc {
        return None;
    }
    let colon = w.raw.find(':')?;
    let key = &w.raw[..colon];
    let mut chars = key.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok || w.raw[colon + 1..].starts_with("//") {
        return None;
    }
    // The key is plain text at the start of the first piece.
    match w.pieces.first() {
        Some(Piece::Text(t)) if t.starts_with(&format!("{key}:")) => Some(key.to_string()),
        _ => None,
    }
}

fn looks_like_duration(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Milliseconds of a timeout (`whole` = only whole milliseconds) or a duration (`500`,
/// `500ms`, `2s`, `1.5s`, `1m`), between 1 ms and 10 minutes.
fn parse_ms(text: &str, whole: bool) -> Option<u64> {
    let ms = if let Ok(n) = text.parse::<u64>() {
        n
    } else if whole {
        return None;
    } else {
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let (num, unit) = text.split_at(split);
        if num.is_empty() || num.starts_with('.') || num.ends_with('.') {
            return None;
        }
        let n: f64 = num.parse().ok()?;
        let factor = match unit {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            _ => return None,
        };
        let v = n * factor;
        if v.fract() != 0.0 {
            return None;
        }
        v as u64
    };
    (1..=MAX_MS).contains(&ms).then_some(ms)
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
