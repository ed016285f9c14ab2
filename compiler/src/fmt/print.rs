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
use crate::ir::{
    Aggregate, Assert, Assertion, ClientBehavior, DataSource, ElicitationAnswer, ErrorExpectation,
    Export, ForEach, HttpTarget, JsonAssertions, JsonType, NativeAction, NativeStep, OAuth,
    OrderedMap, Phase, RequestStep, SamplingAnswer, ScriptedSampling, SetStep, Skip, Status,
    StdioTarget, Step, StepKind, Suite, Target, Test, ToolStep,
};
use crate::lower::values;
use crate::syntax::token::{Tok, lex_line};
use serde_json::{Map, Value, json};

/// The canonical `.mcpr` text of a suite.
pub fn suite(suite: &Suite) -> String {
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
        snapshots: _,
        client: _,
        tests: _,
        extensions: _,
        data_sources: _,
    } = suite;
    let mut p = Printer::default();
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
#[derive(Default)]
struct Printer {
    out: String,
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

/// The `Server options` block that gives a target its settings beyond command and URL.
fn target_options(target: &Target) -> Map<String, Value> {
    // Named member by member, so a new one must be printed here.
    match target {
        Target::Stdio(StdioTarget {
            command: _,
            args: _,
            cwd: _,
            env: _,
        })
        | Target::StreamableHttp(HttpTarget {
            url: _,
            headers: _,
            token_from: _,
            oauth: _,
        })
        | Target::Sse(HttpTarget { .. }) => {}
    }
    let mut m = Map::new();
    match target {
        Target::Stdio(t) => {
            if let Some(cwd) = &t.cwd {
                m.insert("cwd".into(), Value::String(cwd.clone()));
            }
            if let Some(env) = &t.env {
                m.insert("env".into(), string_map(env));
            }
        }
        Target::StreamableHttp(h) | Target::Sse(h) => {
            if matches!(target, Target::Sse(_)) {
                m.insert("transport".into(), json!("sse"));
            }
            http_options(&mut m, h);
        }
    }
    m
}

fn http_options(m: &mut Map<String, Value>, h: &HttpTarget) {
    if let Some(headers) = &h.headers {
        m.insert("headers".into(), string_map(headers));
    }
    if let Some(cmd) = &h.token_from {
        m.insert("tokenFrom".into(), Value::String(cmd.clone()));
    }
    match &h.oauth {
        Some(OAuth::Enabled(b)) => {
            m.insert("oauth".into(), Value::Bool(*b));
        }
        Some(OAuth::Settings(s)) => {
            m.insert(
                "oauth".into(),
                serde_json::to_value(s).unwrap_or(Value::Null),
            );
        }
        None => {}
    }
}

fn string_map(map: &OrderedMap<String>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.clone())))
            .collect(),
    )
}

/// A command line whose words `split_command` gives back: plain words as they are, words
/// with spaces or quotes in quotes.
fn command_line<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| {
            let plain = !w.is_empty()
                && !w.contains(char::is_whitespace)
                && !w.contains(['"', '\''])
                && !w.contains('\n');
            if plain {
                w.to_string()
            } else if !w.contains('"') {
                format!("\"{w}\"")
            } else {
                format!("'{w}'")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn settings(p: &mut Printer, suite: &Suite) {
    if let Some(ms) = suite.defaults.as_ref().and_then(|d| d.timeout_ms)
        && let Some(d) = duration(ms)
    {
        p.line(0, &format!("Default timeout: {d}"));
    }
    for b in suite.budgets.iter().flatten() {
        let Some(max) = duration(b.max_ms) else {
            continue;
        };
        let target = if b.test == "*" {
            String::new()
        } else {
            match qname(&b.test) {
                Some(q) => format!(" for {q}"),
                None => continue,
            }
        };
        let window = b
            .window
            .map(|w| format!(" over {w} calls"))
            .unwrap_or_default();
        p.line(
            0,
            &format!("Budget{target}: p{} {max}{window}", b.percentile),
        );
    }
    if let Some(redact) = &suite.redact {
        // `Redact: ""` keeps an empty list written as such.
        let items = if redact.is_empty() {
            Some("\"\"".to_string())
        } else {
            list(redact)
        };
        if let Some(items) = items {
            p.line(0, &format!("Redact: {items}"));
        }
    }
    if let Some(s) = &suite.snapshots {
        if let Some(file) = s.file.as_ref().and_then(|f| rest_plain(f)) {
            p.line(0, &format!("Snapshots: {file}"));
        }
        if let Some(items) = s
            .ignore
            .as_ref()
            .filter(|i| !i.is_empty())
            .and_then(|i| list(i))
        {
            p.line(0, &format!("Ignore snapshot paths: {items}"));
        }
    }
    if let Some(client) = suite.client.as_ref().filter(|c| !c.is_empty())
        && let Ok(Value::Object(m)) = serde_json::to_value(client)
    {
        p.line(0, "Client behavior:");
        p.block(0, &m);
    }
    if let Some(ext) = &suite.extensions {
        let only_functions = ext.permissions.is_none()
            && ext.allowlist.is_none()
            && ext.unsafe_legacy.is_none()
            && ext.functions.as_ref().is_some_and(|f| !f.is_empty());
        match ext.functions.as_ref().and_then(|f| plain_list(f)) {
            Some(items) if only_functions => p.line(0, &format!("Functions: {items}")),
            _ => {
                if let Ok(Value::Object(m)) = serde_json::to_value(ext)
                    && !m.is_empty()
                {
                    p.line(0, "Extensions:");
                    p.block(0, &m);
                }
            }
        }
    }
}

fn data_source(p: &mut Printer, name: &str, source: &DataSource) {
    let Some(n) = qname(name) else { return };
    p.line(0, &format!("Data source: {n}"));
    if let Some(lines) = source_phrases(source) {
        for line in lines {
            p.line(2, &line);
        }
    } else if let Ok(Value::Object(m)) = serde_json::to_value(source) {
        p.block(0, &m);
    }
}

/// `1 row`, `2 rows`.
fn rows(n: u64) -> String {
    if n == 1 {
        "1 row".into()
    } else {
        format!("{n} rows")
    }
}

/// A data source in phrases, when the phrases lower back to exactly this source.
fn source_phrases(s: &DataSource) -> Option<Vec<String>> {
    use crate::ir::{ColumnType, Provider, Sample, WhereCondition};
    // What phrases can set; anything else goes to the YAML form.
    let mut rest = s.clone();
    rest.provider = None;
    rest.file = None;
    rest.url = None;
    rest.sheet = None;
    rest.path = None;
    rest.columns = None;
    rest.derive = None;
    rest.filter = None;
    rest.sample = None;
    rest.cache = None;
    if rest != DataSource::default() || s.cache == Some(false) {
        return None;
    }
    let mut lines = Vec::new();
    match (s.provider?, &s.file, &s.url) {
        (
            p @ (Provider::Csv | Provider::Json | Provider::Yaml | Provider::Excel),
            Some(f),
            None,
        ) if s.path.is_none() => {
            let kind = match p {
                Provider::Csv => "CSV",
                Provider::Json => "JSON",
                Provider::Yaml => "YAML",
                _ => "Excel",
            };
            let sheet = match &s.sheet {
                Some(sh) => format!(" sheet {}", qname(sh)?),
                None => String::new(),
            };
            lines.push(format!("From {kind} {}{sheet}", qname(f)?));
        }
        (Provider::Rest, None, Some(u)) if s.sheet.is_none() => {
            let at = match &s.path {
                Some(path) => format!(" at {}", qname(path)?),
                None => String::new(),
            };
            lines.push(format!("From REST {}{at}", qname(u)?));
        }
        _ => return None,
    }
    for (name, c) in s.columns.iter().flat_map(|c| c.iter()) {
        let kind = match c.kind? {
            ColumnType::String => "string",
            ColumnType::Number => "number",
            ColumnType::Boolean => "boolean",
            ColumnType::Date => "date",
            ColumnType::Json => "json",
        };
        let required = match c.required {
            None => "",
            Some(true) => " required",
            Some(false) => return None,
        };
        let one_of = match &c.allowed {
            None => String::new(),
            Some(items) if items.is_empty() => return None,
            Some(items) => {
                let texts: Option<Vec<String>> = items
                    .iter()
                    .map(|v| typed_text(v).filter(|t| !t.contains(',') || t.starts_with('"')))
                    .collect();
                format!(" one of {}", texts?.join(", "))
            }
        };
        lines.push(format!(
            "Column {} is {kind}{required}{one_of}",
            qname(name)?
        ));
    }
    for (name, template) in s.derive.iter().flat_map(|d| d.iter()) {
        lines.push(format!(
            "Derive {} as {}",
            qname(name)?,
            rest_text(template)?
        ));
    }
    for (column, cond) in s.filter.iter().flat_map(|f| f.iter()) {
        let tail = match cond {
            WhereCondition::Equals(v) if !v.is_array() && !v.is_object() => {
                format!("equals {}", typed_text(v)?)
            }
            WhereCondition::Operators(o) => {
                let set = [
                    o.equals.is_some(),
                    o.not_equals.is_some(),
                    o.one_of.is_some(),
                    o.matches.is_some(),
                    o.greater_than.is_some(),
                    o.less_than.is_some(),
                ];
                if set.iter().filter(|b| **b).count() != 1 {
                    return None;
                }
                if let Some(v) = &o.not_equals {
                    format!("does not equal {}", typed_text(v)?)
                } else if let Some(items) = &o.one_of {
                    let texts: Option<Vec<String>> = items
                        .iter()
                        .map(|v| {
                            typed_text(v)
                                .filter(|t| !t.contains(',') && values::typed(t.trim()) == *v)
                        })
                        .collect();
                    let texts = texts?;
                    if texts.is_empty() {
                        return None;
                    }
                    format!("is one of {}", texts.join(", "))
                } else if let Some(re) = &o.matches {
                    format!("matches {}", rest_text(re)?)
                } else if let Some(n) = &o.greater_than {
                    format!("is greater than {n}")
                } else if let Some(n) = &o.less_than {
                    format!("is less than {n}")
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        lines.push(format!("Keep rows where {} {tail}", qname(column)?));
    }
    match &s.sample {
        None => {}
        Some(Sample::First(f)) => lines.push(format!("Sample first {}", rows(f.first))),
        Some(Sample::Last(l)) => lines.push(format!("Sample last {}", rows(l.last))),
        Some(Sample::Every(e)) => lines.push(format!("Sample every {}", rows(e.every))),
        Some(Sample::Random(r)) => {
            lines.push(format!("Sample {} with seed {}", rows(r.count), r.seed?))
        }
        Some(Sample::Count(_)) => return None,
    }
    if s.cache == Some(true) {
        lines.push("Cache this source".into());
    }
    // Numbers in phrases are whole and signed 64-bit; a greater/less-than must read back.
    let fits = |n: &serde_json::Number| values::typed(&n.to_string()) == Value::Number(n.clone());
    if let Some(f) = &s.filter {
        for c in f.values() {
            if let WhereCondition::Operators(o) = c
                && [&o.greater_than, &o.less_than]
                    .into_iter()
                    .flatten()
                    .any(|n| !fits(n))
            {
                return None;
            }
        }
    }
    let too_big = |n: u64| i64::try_from(n).is_err();
    match &s.sample {
        Some(Sample::First(f)) if too_big(f.first) => return None,
        Some(Sample::Last(l)) if too_big(l.last) => return None,
        Some(Sample::Every(e)) if too_big(e.every) => return None,
        Some(Sample::Random(r)) if too_big(r.count) || r.seed.is_some_and(too_big) => {
            return None;
        }
        _ => {}
    }
    Some(lines)
}

fn test(p: &mut Printer, suite: &Suite, t: &Test) {
    // Named member by member, so a new one must be printed here. `logicalName` is written
    // only when it is not the test's name; `data` (the row an already expanded test came
    // from) as a `Data row:` block (an empty one has no form and is refused by
    // `to_mcpr_checked`).
    let Test {
        name: _,
        steps: _,
        id: _,
        skip: _,
        server: _,
        depends_on: _,
        requires: _,
        logical_name: _,
        variables: _,
        data: _,
        for_each: _,
        continue_on_failure: _,
    } = t;
    p.line(
        0,
        &format!("Test: {}", rest_text(&t.name).unwrap_or_default()),
    );
    if let Some(id) = &t.id
        && *id != crate::names::slug(&t.name)
        && let Some(text) = rest_plain(id)
    {
        p.line(2, &format!("Id: {text}"));
    }
    if let Some(server) = t.server.as_ref().and_then(|s| qname(s)) {
        p.line(2, &format!("On server {server}"));
    }
    match &t.skip {
        Some(Skip::Flag(true)) => p.line(2, "Skip"),
        Some(Skip::Reason(r)) => match rest_text(r) {
            Some(r) if !r.trim_matches('"').trim().is_empty() => p.line(2, &format!("Skip: {r}")),
            _ => p.line(2, "Skip"),
        },
        _ => {}
    }
    if let Some(req) = &t.requires {
        if let Some(items) = req
            .capabilities
            .as_ref()
            .filter(|c| !c.is_empty())
            .and_then(|c| plain_list(c))
        {
            p.line(2, &format!("Require: {items}"));
        }
        if let Some(items) = req
            .protocol_versions
            .as_ref()
            .filter(|c| !c.is_empty())
            .and_then(|c| list(c))
        {
            p.line(2, &format!("Require protocol: {items}"));
        }
    }
    if let Some(items) = t
        .depends_on
        .as_ref()
        .filter(|d| !d.is_empty())
        .and_then(|d| plain_list(d))
    {
        p.line(2, &format!("Depends on: {items}"));
    }
    if let Some(logical) = &t.logical_name
        && *logical != t.name
        && let Some(text) = rest_text(logical)
    {
        p.line(2, &format!("Logical name: {text}"));
    }
    if let Some(data) = t.data.as_ref().filter(|d| !d.is_empty()) {
        p.line(2, "Data row:");
        p.block(2, data);
    }
    if t.continue_on_failure == Some(true) {
        p.line(2, "Continue on failure");
    }
    if let Some(vars) = t.variables.as_ref().filter(|v| !v.is_empty()) {
        p.line(2, "Variables:");
        p.block(2, vars);
    }
    match &t.for_each {
        Some(ForEach::Rows(rows)) => {
            p.line(2, "For each row:");
            if table_fits(&rows.rows) {
                for line in table(&rows.rows) {
                    p.line(4, &line);
                }
            } else {
                let items: Vec<Value> = rows.rows.iter().cloned().map(Value::Object).collect();
                emit::sequence(&mut p.out, &items, 4);
            }
        }
        Some(ForEach::File(f)) => {
            if let Some(file) = qname(&f.file) {
                let sheet = f
                    .sheet
                    .as_ref()
                    .and_then(|s| qname(s))
                    .map(|s| format!(" from sheet {s}"))
                    .unwrap_or_default();
                p.line(2, &format!("For each row in {file}{sheet}"));
            }
        }
        Some(ForEach::Source(s)) => {
            if let Some(source) = qname(&s.source) {
                p.line(2, &format!("For each row from {source}"));
            }
        }
        None => {}
    }
    let functions = suite
        .extensions
        .as_ref()
        .and_then(|e| e.functions.as_ref())
        .is_some();
    let mut section = Phase::Test;
    for step in &t.steps {
        // Printed as the runtime reads it: what the suite leaves unwritten is spelled out.
        let step = &super::canonical_step(step);
        if let Some(phase) = step.phase
            && phase != section
        {
            p.line(
                2,
                match phase {
                    Phase::Setup => "Setup:",
                    Phase::Test => "Steps:",
                    Phase::Cleanup => "Cleanup:",
                },
            );
            section = phase;
        }
        let lines = phrases(step, section, functions).unwrap_or_else(|| run_step(step, section));
        for line in lines {
            p.line(2, &line);
        }
    }
}

/// An inline table with the columns of the first row, cells padded to line up (callers
/// check [`table_fits`] first).
fn table(rows: &[Map<String, Value>]) -> Vec<String> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    let header: Vec<String> = first.keys().cloned().collect();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            header
                .iter()
                .map(|h| match row.get(h.as_str()) {
                    None | Some(Value::Null) => String::new(),
                    Some(v) => typed_text(v).unwrap_or_default(),
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(&header[i])
                .chain(body.iter().map(|r| &r[i]))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(1)
                .max(1)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {c}{} ", " ".repeat(w - c.chars().count())))
            .collect();
        format!("|{}|", padded.join("|"))
    };
    let mut lines = vec![line(&header)];
    lines.push(format!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    ));
    lines.extend(body.iter().map(|r| line(r)));
    lines
}

/// Whether an inline table can hold these rows exactly: every row has the same columns in
/// the same order, and every cell can be written between `|`s and reads back as its value.
pub fn table_fits(rows: &[Map<String, Value>]) -> bool {
    let Some(first) = rows.first() else {
        return false;
    };
    let header: Vec<&String> = first.keys().collect();
    header.iter().all(|h| cell_ok(h) && !h.is_empty())
        && rows.iter().all(|row| {
            row.keys().collect::<Vec<_>>() == header
                && row.values().all(|v| match v {
                    Value::Null => true,
                    v => typed_text(v).is_some_and(|t| cell_ok(&t) && !t.is_empty()),
                })
        })
}

fn cell_ok(t: &str) -> bool {
    !t.contains(['|', '\n', '\r', '\t']) && t.trim() == t
}

// ------------------------------------------------------------------ steps

/// The `Run step with:` form: the step in the suite model, without what `.mcpr` supplies
/// (its position, flow frames, and the phase when it is the section's).
fn run_step(step: &Step, section: Phase) -> Vec<String> {
    let mut copy = step.clone();
    copy.source = None;
    copy.flow = Vec::new();
    let mut m = match serde_json::to_value(&copy) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    // The caller printed the section of the (canonical) phase.
    if step.phase == Some(section) {
        m.shift_remove("phase");
    }
    // A tool call's default name goes without saying.
    if let StepKind::Tool(t) = &step.kind
        && step.name.as_deref() == Some(named("Call tool", &t.name).as_str())
    {
        m.shift_remove("name");
    }
    let mut out = String::new();
    emit::mapping(&mut out, &m, 2);
    let mut lines = vec!["Run step with:".to_string()];
    lines.extend(out.lines().map(str::to_string));
    lines
}

/// The step name `.mcpr` gives a subject in quotes: `Call tool “add”`.
fn named(verb: &str, subject: &str) -> String {
    format!("{verb} \u{201c}{subject}\u{201d}")
}

/// The step as phrases, when phrases lower back to exactly this step.
fn phrases(step: &Step, section: Phase, functions: bool) -> Option<Vec<String>> {
    // Every member is named here so that a new one cannot slip past the phrases: it must be
    // handled below (or the step goes to `Run step with:`).
    let Step {
        name: _,
        kind,
        phase,
        always: _,
        assert: _,
        capture: _,
        export: _,
        timeout_ms: _,
        source: _,
        flow: _,
    } = step;
    match kind {
        StepKind::Tool(ToolStep {
            name: _,
            arguments: _,
            positional: _,
            coerce: _,
            task: _,
        })
        | StepKind::Request(RequestStep {
            method: _,
            params: _,
        })
        | StepKind::Set(SetStep {
            variable: _,
            function: _,
            arguments: _,
        })
        | StepKind::Native(_) => {}
    }
    if *phase != Some(section) {
        return None;
    }
    let cleanup = Some(section == Phase::Cleanup);
    let name = step.name.as_deref()?;
    let mut lines = Vec::new();
    // (first line, block, always as lowering writes it)
    let (head, block, always): (String, Option<&Map<String, Value>>, Option<bool>) = match &step
        .kind
    {
        StepKind::Tool(t) => {
            // Positional values, schema coercion and task mode have no phrase.
            if name != named("Call tool", &t.name)
                || t.positional.is_some()
                || t.coerce.is_some()
                || t.task.is_some()
            {
                return None;
            }
            match &t.arguments {
                Some(a) if a.is_empty() => return None,
                a => (
                    format!("Call tool {}", qname(&t.name)?),
                    a.as_ref(),
                    cleanup,
                ),
            }
        }
        StepKind::Request(r) => {
            let params = r.params.as_ref();
            if r.method == "resources/read"
                && let Some(Value::Object(p)) = params
                && p.len() == 1
                && let Some(Value::String(uri)) = p.get("uri")
                && name == named("Read resource", uri)
            {
                (format!("Read resource {}", qname(uri)?), None, cleanup)
            } else if r.method == "prompts/get"
                && let Some((prompt, args)) = name_and_arguments(params)
                && name == named("Get prompt", prompt)
            {
                (format!("Get prompt {}", qname(prompt)?), args, cleanup)
            } else if name == format!("Send {}", r.method) {
                match params {
                    None => (format!("Send {}", qname(&r.method)?), None, cleanup),
                    Some(Value::Object(p)) if !p.is_empty() => {
                        (format!("Send {}", qname(&r.method)?), Some(p), cleanup)
                    }
                    _ => return None,
                }
            } else {
                return None;
            }
        }
        StepKind::Set(s) => {
            if name != format!("{} using {}", named("Set", &s.variable), s.function)
                || step.assert.is_some()
                || step.capture.is_some()
                || step.export.is_some()
                || step.timeout_ms.is_some()
                || !same_always(step.always, cleanup, section)
                || (!functions && !crate::lower::BUILT_IN_FUNCTIONS.contains(&s.function.as_str()))
            {
                return None;
            }
            let head = format!("Set {} using {}", qname(&s.variable)?, qname(&s.function)?);
            return match &s.arguments {
                Some(a) if a.is_empty() => None,
                a => Some(with_block(head, a.as_ref())),
            };
        }
        StepKind::Native(n) => native(n, name, cleanup)?,
    };
    if !same_always(step.always, always, section) {
        return None;
    }
    if let StepKind::Native(_) = step.kind
        && step.timeout_ms.is_some()
    {
        return None;
    }
    lines.extend(with_block(head, block));
    lines.extend(modifiers(step)?);
    Some(lines)
}

/// Whether two `always` settings mean the same in `section` (see [`super::canonical_step`]).
fn same_always(a: Option<bool>, b: Option<bool>, section: Phase) -> bool {
    let norm = |x: Option<bool>| x == Some(true) && section != Phase::Cleanup;
    norm(a) == norm(b)
}

/// `head` plus ` with:` and the block when there is one (an empty block cannot be written;
/// callers turn an empty map into "no block" only where lowering does the same).
fn with_block(head: String, block: Option<&Map<String, Value>>) -> Vec<String> {
    match block {
        Some(b) if !b.is_empty() => {
            let mut out = String::new();
            emit::mapping(&mut out, b, 2);
            let mut lines = vec![format!("{head} with:")];
            lines.extend(out.lines().map(str::to_string));
            lines
        }
        _ => vec![head],
    }
}

/// `{"name": N, "arguments": {…}}` as `Get prompt`/progress calls lower it.
fn name_and_arguments(params: Option<&Value>) -> Option<(&str, Option<&Map<String, Value>>)> {
    let Some(Value::Object(p)) = params else {
        return None;
    };
    let keys: Vec<&str> = p.keys().map(String::as_str).collect();
    if keys != ["name", "arguments"] {
        return None;
    }
    let Value::String(name) = &p["name"] else {
        return None;
    };
    let Value::Object(args) = &p["arguments"] else {
        return None;
    };
    Some((name, (!args.is_empty()).then_some(args)))
}

type Head<'a> = (String, Option<&'a Map<String, Value>>, Option<bool>);

fn native<'a>(n: &'a NativeStep, name: &str, cleanup: Option<bool>) -> Option<Head<'a>> {
    // A phrase fits when the action has exactly the members the phrase writes. `Wait up to`
    // sets a native action's own deadline; it is printed with the modifiers.
    match n {
        NativeStep::Request(r) => {
            let (tool, args) = name_and_arguments(r.params.as_ref())?;
            if r.method.as_deref() != Some("tools/call")
                || r.progress != Some(true)
                || name != format!("{} with progress", named("Call tool", tool))
            {
                return None;
            }
            let cancel = match r.cancel_after_ms {
                Some(ms) => format!(" and cancel after {}", duration(ms)?),
                None => String::new(),
            };
            Some((
                format!("Call tool {} with progress{cancel}", qname(tool)?),
                args,
                None,
            ))
        }
        NativeStep::AwaitNotification(a) => {
            let method = a.method.as_deref()?;
            if name != named("Wait for notification", method) || a.params.is_some() {
                return None;
            }
            let within = duration(a.timeout_ms?)?;
            Some((
                format!("Wait for notification {} within {within}", qname(method)?),
                None,
                cleanup,
            ))
        }
        NativeStep::Subscribe(r) | NativeStep::Unsubscribe(r) => {
            let uri = r.uri.as_deref()?;
            let sub = matches!(n, NativeStep::Subscribe(_));
            let verb = if sub {
                "Subscribe to"
            } else {
                "Unsubscribe from"
            };
            if name != named(verb, uri) {
                return None;
            }
            Some((
                format!("{verb} resource {}", qname(uri)?),
                None,
                if sub { None } else { cleanup },
            ))
        }
        NativeStep::SetLogLevel(l) => {
            let level = l.level.as_deref()?;
            if name != format!("Set log level to {level}") {
                return None;
            }
            Some((
                format!("Set log level to {}", rest_text(level)?),
                None,
                None,
            ))
        }
        NativeStep::ListAll(a) => {
            let what = match (a.method.as_deref()?, a.field.as_deref()?) {
                ("tools/list", "tools") => "tools",
                ("resources/list", "resources") => "resources",
                ("prompts/list", "prompts") => "prompts",
                ("resources/templates/list", "resourceTemplates") => "resource templates",
                _ => return None,
            };
            if name != format!("List all {what}") || a.params.is_some() {
                return None;
            }
            Some((format!("List all {what}"), None, None))
        }
        NativeStep::TaskGet(t) | NativeStep::TaskCancel(t) => {
            let task = t.task_id.as_deref()?;
            let verb = if matches!(n, NativeStep::TaskGet(_)) {
                "Get task"
            } else {
                "Cancel task"
            };
            if name != named(verb, task) || t.params.is_some() {
                return None;
            }
            Some((format!("{verb} {}", qname(task)?), None, None))
        }
        NativeStep::TaskList(l) => {
            (name == "List tasks" && l.params.is_none()).then(|| ("List tasks".into(), None, None))
        }
        // mcpr additions written by legacy `.mcp` scripts: no phrase yet, so they print as
        // `Run step with:`, which carries every setting.
        NativeStep::Echo(_)
        | NativeStep::Prompt(_)
        | NativeStep::QueueAnswer(_)
        | NativeStep::Check(_)
        | NativeStep::SaveText(_)
        | NativeStep::TaskWait(_)
        | NativeStep::SkillsList(_)
        | NativeStep::SkillsVerify(_)
        | NativeStep::AppsVerify(_) => None,
        NativeStep::ConfigureClient(c) => client_answer(c.behavior.as_ref()?, name),
    }
}

/// The `When the server asks for input` / `When the server requests sampling` phrase of a
/// `configure-client` behaviour that sets one scripted answer as those phrases write it.
fn client_answer<'a>(behavior: &'a ClientBehavior, name: &str) -> Option<Head<'a>> {
    match behavior {
        ClientBehavior {
            prepared_answers_only: None,
            extensions: None,
            roots: None,
            sampling: None,
            elicitation: Some(ElicitationAnswer::Scripted(el)),
        } => {
            let action = el.action.as_deref()?;
            let content = match &el.content {
                None => None,
                Some(Value::Object(c)) if !c.is_empty() => Some(c),
                Some(_) => return None,
            };
            if action != action.to_ascii_lowercase()
                || name != format!("Respond to elicitation with {action}")
            {
                return None;
            }
            Some((
                format!("When the server asks for input, respond {}", qname(action)?),
                content,
                None,
            ))
        }
        ClientBehavior {
            prepared_answers_only: None,
            extensions: None,
            roots: None,
            sampling:
                Some(SamplingAnswer::Scripted(ScriptedSampling {
                    model: Some(model),
                    text: Some(text),
                    response: None,
                })),
            elicitation: None,
        } => {
            if model != "mcprigor-scripted" || name != "Respond to sampling with a scripted message"
            {
                return None;
            }
            Some((
                format!(
                    "When the server requests sampling, respond {}",
                    qname(text)?
                ),
                None,
                None,
            ))
        }
        _ => None,
    }
}

/// Expectations and modifiers after an action, in the order lowering applies them.
fn modifiers(step: &Step) -> Option<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(a) = &step.assert {
        lines.extend(expectations(a)?);
    }
    for (var, path) in step.capture.iter().flat_map(|c| c.iter()) {
        lines.push(format!("Save {} as {}", path_text(path)?, qname(var)?));
    }
    for (name, e) in step.export.iter().flat_map(|e| e.iter()) {
        let Export {
            path: _,
            aggregate: _,
            sensitive: _,
        } = e;
        let aggregate = match e.aggregate? {
            Aggregate::Single => "",
            Aggregate::List => " collecting a list",
            Aggregate::Map => " collecting a map",
        };
        let sensitive = match e.sensitive {
            None => "",
            Some(true) => " sensitive",
            Some(false) => return None,
        };
        lines.push(format!(
            "Export {} as {}{aggregate}{sensitive}",
            path_text(&e.path)?,
            qname(name)?
        ));
    }
    let timeout = match &step.kind {
        StepKind::Native(n) if n.action() != NativeAction::AwaitNotification => n.timeout_ms(),
        StepKind::Native(_) => None,
        _ => step.timeout_ms,
    };
    if let Some(ms) = timeout {
        lines.push(format!("Wait up to {}", duration(ms)?));
    }
    Some(lines)
}

fn expectations(a: &Assert) -> Option<Vec<String>> {
    // Named member by member, so a new one must be handled here.
    let Assert {
        status: _,
        error: _,
        max_duration_ms: _,
        json: _,
    } = a;
    if let Some(ErrorExpectation {
        code: _,
        message: _,
        matches: _,
    }) = &a.error
    {}
    let mut lines = Vec::new();
    match (a.status, &a.error) {
        (None, None) => {}
        (Some(Status::Success), None) => lines.push("Expect it succeeds".to_string()),
        (Some(Status::Error), None) => lines.push("Expect an error".to_string()),
        (Some(Status::Error), Some(e)) => {
            if e.code.is_none() && e.message.is_none() && e.matches.is_none() {
                return None;
            }
            if let Some(code) = e.code {
                lines.push(format!("Expect error code {code}"));
            }
            if let Some(m) = &e.message {
                lines.push(format!("Expect error message equals {}", rest_text(m)?));
            }
            if let Some(re) = &e.matches {
                match literal_of(re) {
                    Some(text) => lines.push(format!(
                        "Expect error message contains {}",
                        rest_text(&text)?
                    )),
                    None => lines.push(format!("Expect error message matches {}", rest_text(re)?)),
                }
            }
        }
        _ => return None,
    }
    if let Some(ms) = a.max_duration_ms {
        lines.push(format!(
            "Expect the call to finish within {}",
            duration(ms)?
        ));
    }
    match &a.json {
        None => {}
        Some(JsonAssertions::List(list)) if !list.is_empty() => {
            for x in list {
                lines.extend(assertion(x)?);
            }
        }
        _ => return None,
    }
    if lines.is_empty() {
        return None;
    }
    Some(lines)
}

/// The text `contains T` was lowered from, when `re` is exactly `regex_escape(T)`.
fn literal_of(re: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next()?;
            if !"\\^$.|?*+()[]{}".contains(next) {
                return None;
            }
            out.push(next);
        } else if "\\^$.|?*+()[]{}".contains(c) {
            return None;
        } else {
            out.push(c);
        }
    }
    (values::regex_escape(&out) == re).then_some(out)
}

/// One assertion object as one `Expect` line (and its schema block), when it holds a path and
/// exactly one check.
fn assertion(x: &Assertion) -> Option<Vec<String>> {
    let path = path_text(x.path.as_deref()?)?;
    let mut only = x.clone();
    only.path = None;
    let one = |f: &dyn Fn(&mut Assertion)| {
        let mut probe = only.clone();
        f(&mut probe);
        probe == Assertion::default()
    };
    let tail = if let Some(v) = &x.equals {
        if !one(&|p| p.equals = None) {
            return None;
        }
        format!("equals {}", typed_text(v)?)
    } else if let Some(v) = &x.not_equals {
        if !one(&|p| p.not_equals = None) {
            return None;
        }
        format!("does not equal {}", typed_text(v)?)
    } else if let Some(v) = &x.contains {
        if !one(&|p| p.contains = None) {
            return None;
        }
        format!("contains {}", typed_text(v)?)
    } else if x.exists == Some(true) && one(&|p| p.exists = None) {
        "exists".into()
    } else if let Some(k) = x.kind {
        if !one(&|p| p.kind = None) {
            return None;
        }
        match k {
            JsonType::Array => "is an array",
            JsonType::Null => "is a null",
            JsonType::Object => "is an object",
            JsonType::String => "is a string",
            JsonType::Number => "is a number",
            JsonType::Boolean => "is a boolean",
        }
        .into()
    } else if let Some(n) = x.length {
        if !one(&|p| p.length = None) || i64::try_from(n).is_err() {
            return None;
        }
        format!("has {n} {}", if n == 1 { "item" } else { "items" })
    } else if let Some(re) = &x.matches {
        if !one(&|p| p.matches = None) {
            return None;
        }
        format!("matches {}", rest_text(re)?)
    } else if let Some(schema) = &x.schema {
        if !one(&|p| p.schema = None) || schema.is_empty() {
            return None;
        }
        let mut out = String::new();
        emit::mapping(&mut out, schema, 2);
        let mut lines = vec![format!("Expect {path} matches schema:")];
        lines.extend(out.lines().map(str::to_string));
        return Some(lines);
    } else if let Some(snap) = &x.snapshot {
        if !one(&|p| p.snapshot = None) {
            return None;
        }
        let ignoring = match &snap.ignore {
            None => String::new(),
            Some(list) if list.is_empty() => return None,
            Some(list) => {
                let mut seen = Vec::new();
                for p in list {
                    if seen.contains(&p) {
                        return None;
                    }
                    seen.push(p);
                }
                let items: Option<Vec<String>> = list.iter().map(|p| path_text(p)).collect();
                format!(" ignoring {}", items?.join(", "))
            }
        };
        format!("matches snapshot {}{ignoring}", qname(&snap.name)?)
    } else {
        return None;
    };
    Some(vec![format!("Expect {path} {tail}")])
}

// ------------------------------------------------------------------ text forms

/// A quoted name: `"s"`, or `'s'` when it holds a double quote. `None` when no quoting fits.
fn qname(s: &str) -> Option<String> {
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
fn rest_text(s: &str) -> Option<String> {
    (!s.contains(['\n', '\r', '\t'])).then(|| format!("\"{s}\""))
}

/// A comma list of quoted items (a quoted item may hold commas).
fn list(items: &[String]) -> Option<String> {
    let quoted: Option<Vec<String>> = items
        .iter()
        .map(|i| if i.is_empty() { None } else { qname(i) })
        .collect();
    Some(quoted?.join(", "))
}

/// A comma list with plain items where they need no quotes (`tools, resources`).
fn plain_list(items: &[String]) -> Option<String> {
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
fn simple_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "._-/:@+~=%?&$[]".contains(c))
        && !s.starts_with(['\'', '"'])
}

/// Rest-of-line text written plain when it is one simple word (`MCP URL: https://x/mcp`).
fn rest_plain(s: &str) -> Option<String> {
    if simple_word(s) {
        Some(s.to_string())
    } else {
        rest_text(s)
    }
}

/// A result path as people write it (`"structuredContent.total"`), or in full when the short
/// form would normalise to something else.
fn path_text(p: &str) -> Option<String> {
    let short = p
        .strip_prefix("$.")
        .filter(|s| values::normalise_path(s) == p);
    qname(short.unwrap_or(p))
}

/// A whole number of milliseconds as a duration the language reads back (1 ms – 600 s).
fn duration(ms: u64) -> Option<String> {
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
fn typed_text(v: &Value) -> Option<String> {
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
fn lexes_clean(text: &str) -> bool {
    let mut toks = Vec::new();
    lex_line(text, 0, &mut toks);
    !toks.iter().any(|(t, _)| matches!(t, Tok::Error(_)))
}
