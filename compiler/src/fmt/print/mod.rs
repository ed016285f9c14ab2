//! Suite IR → canonical `.mcpr` text.
//!
//! The printer writes the layout people write: document settings first, then data sources,
//! then tests, each with its properties, then its steps as phrases (`Call tool "add" with:` and
//! a two-space indented YAML block, `Expect …` lines, `Save …`), with section markers where
//! the phase changes. A step is written in phrases only when the phrases lower back to the
//! same step as the runtime reads it ([`super::canonical_step`]: same name, arguments,
//! expectations in the same order …); any other step — one written in a YAML suite with its
//! own name, several checks in one assertion object, a request with non-object parameters — is
//! written with the general `Run step with:` form, whose YAML block is the step in the suite
//! model. Data sources and row tables likewise fall back to YAML. Printing loses nothing but
//! source positions and flow frames (flows are already expanded in the IR; their steps print in
//! place); the few texts no line can hold (a name over two lines, a name with both kinds of
//! quote where only a quoted name fits) make [`super::to_mcpr_checked`] refuse the suite.
//!
//! Values are written so the compiler's own readers give them back: a value after `equals` is
//! left plain only when YAML typing returns the same value, quoted otherwise, and checked.

use super::emit;

mod data;
mod expect;
mod native;
mod settings;
mod steps;
mod test;

use crate::ir::{
    Aggregate, Assert, Assertion, ClientBehavior, DataSource, ElicitationAnswer, ErrorExpectation,
    Export, Fault, FaultKind, ForEach, HttpTarget, InheritEnv, JsonAssertions, JsonType,
    NativeAction, NativeStep, OAuth, OrderedMap, Phase, RequestStep, SamplingAnswer,
    ScriptedSampling, SetStep, Skip, Status, StdioTarget, Step, StepKind, Suite, Target, Test,
    ToolStep,
};
use crate::syntax::token::{Tok, lex_line};
use crate::values;
use data::*;
use expect::*;
use native::*;
use serde_json::{Map, Value, json};
use settings::*;
use steps::*;
use test::*;
pub use test::{table_fits, table_lines};

/// How the printer writes what has more than one way.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Write a step as phrases whatever its name, keeping a name the phrases would not give
    /// on comment lines above them (`# call_tool add 2 3`). For legacy `.mcp` scripts, whose
    /// steps are named after their command lines: the suite then reads as `.mcpr`, and
    /// compiles to the same suite but for those names ([`crate::fmt::to_mcpr_checked_with`]).
    pub names_as_comments: bool,
}

/// The canonical `.mcpr` text of a suite.
pub fn suite(suite: &Suite) -> String {
    suite_with(suite, Options::default())
}

/// The `.mcpr` text of a suite, written as `options` say.
pub fn suite_with(suite: &Suite, options: Options) -> String {
    // Named member by member, so a new one must be printed here.
    let Suite {
        version: _,
        ir_version: _,
        name: _,
        target: _,
        targets: _,
        servers: _,
        defaults: _,
        budgets: _,
        redact: _,
        minimum_coverage: _,
        snapshots: _,
        client: _,
        tests: _,
        extensions: _,
        data_sources: _,
    } = suite;
    let mut p = Printer {
        out: String::new(),
        options,
    };
    p.line(0, "MCP Test 1");
    if let Some(name) = &suite.name
        && let Some(t) = rest_text(name)
    {
        p.line(0, &format!("Suite: {t}"));
    }
    p.targets(suite);
    settings(&mut p, suite);
    if let Some(sources) = &suite.data_sources {
        for (name, source) in sources.iter() {
            p.blank();
            data_source(&mut p, name, source);
        }
    }
    for test in &suite.tests {
        p.blank();
        self::test(&mut p, suite, test);
    }
    p.out
}

/// Accumulated output.
struct Printer {
    out: String,
    options: Options,
}

impl Printer {
    fn line(&mut self, indent: usize, text: &str) {
        self.out.extend(std::iter::repeat_n(' ', indent));
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn blank(&mut self) {
        self.out.push('\n');
    }

    /// A YAML block under a line indented by `indent`.
    fn block(&mut self, indent: usize, map: &Map<String, Value>) {
        emit::mapping(&mut self.out, map, indent + 2);
    }

    fn targets(&mut self, suite: &Suite) {
        let servers = suite.servers.as_ref().filter(|m| !m.is_empty());
        let targets = suite.targets.as_ref().filter(|m| !m.is_empty());
        // The default target is implied by the first named server (or, without any, the
        // first compare target) when it is that entry: lowering takes the first declared.
        let implied = match (servers, targets) {
            (Some(s), _) => s.values().next() == suite.target.as_ref(),
            (None, Some(t)) => t.values().next() == suite.target.as_ref(),
            (None, None) => false,
        };
        match &suite.target {
            Some(target) if !implied => self.default_target(target),
            Some(_) => {}
            // A suite without a default server (a legacy `.mcp` script): `mcpr run` takes it
            // from `--server`, `--url` or `--profile`.
            None => self.line(0, "Server from the command line"),
        }
        if let Some(servers) = servers {
            for (name, target) in servers.iter() {
                self.named(name, target, "Named server", "Server options for");
            }
        }
        if let Some(targets) = targets {
            for (name, target) in targets.iter() {
                self.named(name, target, "Compare target", "Target options for");
            }
        }
    }

    fn default_target(&mut self, target: &Target) {
        match target {
            Target::Stdio(t) => {
                let words = std::iter::once(t.command.as_str())
                    .chain(t.args.iter().flatten().map(String::as_str));
                self.line(0, &format!("Server: {}", command_line(words)));
            }
            Target::StreamableHttp(h) | Target::Sse(h) => {
                let url = rest_plain(&h.url).unwrap_or_default();
                self.line(0, &format!("MCP URL: {url}"));
            }
        }
        let options = target_options(target);
        if !options.is_empty() {
            self.line(0, "Server options:");
            self.block(0, &options);
        }
    }

    fn named(&mut self, name: &str, target: &Target, verb: &str, options_verb: &str) {
        let Some(n) = qname(name) else { return };
        let connection = match target {
            Target::Stdio(t) => command_line(
                std::iter::once(t.command.as_str())
                    .chain(t.args.iter().flatten().map(String::as_str)),
            ),
            Target::StreamableHttp(h) | Target::Sse(h) => {
                command_line(std::iter::once(h.url.as_str()))
            }
        };
        self.line(0, &format!("{verb} {n}: {connection}"));
        let options = target_options(target);
        if !options.is_empty() {
            self.line(0, &format!("{options_verb} {n}:"));
            self.block(0, &options);
        }
    }
}

/// A quoted name: `"s"`, or `'s'` when it holds a double quote. `None` when no quoting fits.
pub(super) fn qname(s: &str) -> Option<String> {
    if s.contains(['\n', '\r', '\t']) {
        None
    } else if !s.contains('"') {
        Some(format!("\"{s}\""))
    } else if !s.contains('\'') {
        Some(format!("'{s}'"))
    } else {
        None
    }
}

/// Rest-of-line text from which lowering removes one outer pair of quotes: always quoted, so
/// spaces at either end and quotes inside survive.
pub(super) fn rest_text(s: &str) -> Option<String> {
    (!s.contains(['\n', '\r', '\t'])).then(|| format!("\"{s}\""))
}

/// A comma list of quoted items (a quoted item may hold commas).
pub(super) fn list(items: &[String]) -> Option<String> {
    let quoted: Option<Vec<String>> = items
        .iter()
        .map(|i| if i.is_empty() { None } else { qname(i) })
        .collect();
    Some(quoted?.join(", "))
}

/// A comma list with plain items where they need no quotes (`tools, resources`).
pub(super) fn plain_list(items: &[String]) -> Option<String> {
    let out: Option<Vec<String>> = items
        .iter()
        .map(|i| {
            if i.is_empty() {
                None
            } else if simple_word(i) {
                Some(i.clone())
            } else {
                qname(i)
            }
        })
        .collect();
    Some(out?.join(", "))
}

/// Text that reads the same with or without quotes in rest-of-line and list positions.
pub(super) fn simple_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "._-/:@+~=%?&$[]".contains(c))
        && !s.starts_with(['\'', '"'])
}

/// Rest-of-line text written plain when it is one simple word (`MCP URL: https://x/mcp`).
pub(super) fn rest_plain(s: &str) -> Option<String> {
    if simple_word(s) {
        Some(s.to_string())
    } else {
        rest_text(s)
    }
}

/// A result path as people write it (`"structuredContent.total"`), or in full when the short
/// form would normalise to something else.
pub(super) fn path_text(p: &str) -> Option<String> {
    let short = p
        .strip_prefix("$.")
        .filter(|s| values::normalise_path(s) == p);
    qname(short.unwrap_or(p))
}

/// A whole number of milliseconds as a duration the language reads back (1 ms – 600 s).
pub(super) fn duration(ms: u64) -> Option<String> {
    if !(1..=600_000).contains(&ms) {
        return None;
    }
    Some(if ms.is_multiple_of(1000) {
        match ms / 1000 {
            1 => "1 second".to_string(),
            s => format!("{s} seconds"),
        }
    } else {
        format!("{ms} ms")
    })
}

/// A value after `equals`/`contains`: plain when YAML typing gives it back, else quoted; the
/// text must read back as the same value and lex without an unclosed quote.
pub(super) fn typed_text(v: &Value) -> Option<String> {
    let mut candidates = Vec::new();
    match v {
        Value::String(s) => {
            candidates.push(s.clone());
            candidates.push(emit::quote(s));
            candidates.push(format!("'{}'", s.replace('\'', "''")));
        }
        other => candidates.push(emit::inline(other)),
    }
    candidates.into_iter().find(|c| {
        !c.is_empty()
            && !c.contains(['\n', '\r', '\t'])
            && c.trim() == c
            && lexes_clean(c)
            && values::typed(c) == *v
    })
}

/// Whether a text lexes without an unclosed quote.
pub(super) fn lexes_clean(text: &str) -> bool {
    let mut toks = Vec::new();
    lex_line(text, 0, &mut toks);
    !toks.iter().any(|(t, _)| matches!(t, Tok::Error(_)))
}
