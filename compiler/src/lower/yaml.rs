//! YAML and JSON suites → Suite IR.
//!
//! A YAML suite *is* the IR written by hand (the `version: 1` suite model plus mcpr's
//! optional additions), so lowering is reading, checking and locating:
//!
//! 1. size limit (MCPLANG607), strict JSON syntax for `.json` files (601);
//! 2. the located tree ([`tree`]): YAML syntax (601), anchors, aliases and merge keys (606);
//! 3. the suite schema ([`schema`]): unknown fields (602), wrong types (603), missing fields
//!    (604), values outside a fixed set (605), every other rule (608) — each at its key or
//!    value;
//! 4. the IR types (serde), which the schema has already vouched for; a step without a
//!    `source` gets its YAML position, so run-time failures point at the user's line;
//! 5. the semantic checks `.mcpr` files get too, shared with them where the code is shared
//!    (`deps.rs`): duplicate names and ids, unknown and skipped dependencies, cycles,
//!    `${deps.ID.…}` outside a test's dependencies, unknown named servers, data sources and
//!    budget tests, data sources with nothing to load, malformed result paths, references to
//!    variables the test never declares, unknown utility functions.

mod block;
mod events;
mod json;
pub mod lean;
pub mod schema;
pub mod tree;

use super::Lower;
use super::deps::{self, BuiltTest};
use crate::diagnostics::problem::AliasKind;
use crate::diagnostics::{Diagnostic, Problem};
use crate::ir::{ForEach, Suite};
use crate::names::closest;
use crate::source::Span;
use crate::values;
use schema::locate;
use std::collections::HashMap;
use tree::{Node, ReadError};

/// Path segments from string literals and indexes.
macro_rules! path {
    ($($seg:expr),* $(,)?) => {
        [$($seg.to_string()),*]
    };
}

/// The problem of a value outside its closed set.
pub(super) fn outside_set(v: crate::ir::sets::OutsideSet) -> Problem {
    Problem::InvalidValue {
        context: v.what.to_string(),
        found: v.found,
        valid: v.valid.iter().map(|s| s.to_string()).collect(),
    }
}

/// Lowers the entry file of `l` as a YAML or JSON suite.
pub fn lower(l: &mut Lower<'_>, loader: &dyn super::Loader) -> Option<Suite> {
    let file = l.entry;
    let source = l.map.get(file);
    let text = source.text();
    let json = source.path().to_ascii_lowercase().ends_with(".json");
    // A byte order mark is not JSON, but editors write it; it is not an error here.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let shift = text.len() - body.len();
    if json && let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        let at = shift + json_error_offset(body, e.line(), e.column());
        let mut message = json_message(&e);
        let mut span = Span::at(at);
        // `[1, 2,]`: point at the comma, which is the mistake.
        let before = text[..at].trim_end();
        if before.ends_with(',') && text[at..].starts_with([']', '}']) {
            let comma = before.len() - 1;
            span = Span::new(comma, comma + 1);
            message = format!(
                "a comma follows the last item before `{}`",
                &text[at..at + 1]
            );
        }
        l.report(
            Problem::SuiteSyntax {
                message,
                json: true,
            },
            file,
            span,
        );
        return None;
    }
    let nodes = crate::yaml::file_node_budget(l.options.file_limit());
    let read = if json {
        tree::read_json_within(text, nodes)
    } else {
        tree::read_within(text, nodes)
    };
    let tree = match read {
        Ok(t) => t,
        Err(errors) => {
            for e in errors {
                let (problem, span) = match e {
                    ReadError::Syntax { message, span } => (
                        Problem::SuiteSyntax {
                            message: yaml_message(&message),
                            json,
                        },
                        span,
                    ),
                    ReadError::Alias { alias, name, span } => (
                        Problem::YamlAlias {
                            what: if alias {
                                AliasKind::Alias
                            } else {
                                AliasKind::Anchor
                            },
                            name,
                        },
                        span,
                    ),
                    ReadError::TooManyValues { limit, span } => {
                        (Problem::YamlTooLarge { limit }, span)
                    }
                    ReadError::MergeKey { span } => (
                        Problem::YamlAlias {
                            what: AliasKind::MergeKey,
                            name: String::new(),
                        },
                        span,
                    ),
                };
                l.report(problem, file, span);
            }
            return None;
        }
    };
    let suite = match a_test_at_a_time(&tree) {
        Some(suite) => suite,
        None => whole_document(l, &tree)?,
    };
    let mut suite = suite;
    semantics(l, &tree, &mut suite, loader);
    // A step written without a `source` is located at its YAML mapping, so a failure at run
    // time points at the line the user wrote, as it does for `.mcpr` files.
    for (i, t) in suite.tests.iter_mut().enumerate() {
        for (j, step) in t.steps.iter_mut().enumerate() {
            if step.source.is_none() {
                let node = locate(&tree, &path!["tests", i, "steps", j]).node;
                step.source = Some(l.location(file, node.span));
            }
        }
    }
    Some(suite)
}

/// The suite read from its tree a test at a time: the suite with its first test judged by
/// the schema and read into the IR, then every other test judged on its own and read, so
/// the JSON of the whole suite (larger than the tree) is never in memory. `None` when a
/// part does not satisfy the schema or the IR types: [`whole_document`] then words it.
fn a_test_at_a_time(tree: &Node) -> Option<Suite> {
    let tree::Kind::Map(entries) = &tree.kind else {
        return None;
    };
    let tests = entries.iter().find(|e| e.key == "tests")?;
    let tree::Kind::Seq(tests) = &tests.value.kind else {
        return None;
    };
    let mut shell = serde_json::Map::with_capacity(entries.len());
    for e in entries {
        let value = if e.key == "tests" {
            serde_json::Value::Array(tests.first().map(Node::to_json).into_iter().collect())
        } else {
            e.value.to_json()
        };
        shell.insert(e.key.clone(), value);
    }
    let shell = serde_json::Value::Object(shell);
    if !schema::is_valid(&shell) {
        return None;
    }
    let mut suite: Suite = serde_json::from_value(shell).ok()?;
    suite.tests.reserve(tests.len().saturating_sub(1));
    for t in tests.iter().skip(1) {
        let doc = t.to_json();
        if !schema::test_is_valid(&doc) {
            return None;
        }
        suite.tests.push(serde_json::from_value(doc).ok()?);
    }
    Some(suite)
}

/// The suite read from its whole document, every schema problem reported at its key or
/// value; `None` when there is one.
fn whole_document(l: &mut Lower<'_>, tree: &Node) -> Option<Suite> {
    let file = l.entry;
    let doc = tree.to_json();
    let found = schema::check(tree, &doc);
    if !found.is_empty() {
        for f in found {
            l.report(f.problem, file, f.span);
        }
        return None;
    }
    match serde_json::from_value(doc) {
        Ok(suite) => Some(suite),
        Err(e) => {
            // The schema is at least as strict as the IR types, so this is a gap between the
            // two; still say where.
            let (context, span) = serde_failure(tree);
            l.report(
                Problem::SchemaViolation {
                    context,
                    rule: format!("cannot be read as part of a suite: {e}"),
                },
                file,
                span,
            );
            None
        }
    }
}

/// Whether a `.yaml`/`.yml`/`.json` file found in a folder is a suite (and not, say, a CI
/// workflow or a data file): its top level is a mapping with both a `version` and a `tests`
/// key. A file that does not parse is judged by its text — a `version:` and a `tests:` line
/// at column 0 (YAML), or `"version"` and `"tests"` members (JSON) — so a broken suite is
/// still checked and reported. Only the first 64 KiB are looked at when the file is larger
/// than a suite may be by default.
pub fn is_suite(text: &str) -> bool {
    if text.len() <= super::DEFAULT_MAX_FILE_BYTES {
        let mut options = serde_saphyr::Options::default();
        options.strict_booleans = true;
        if let Ok(v) = serde_saphyr::from_str_with_options::<serde_json::Value>(text, options) {
            return v.get("version").is_some() && v.get("tests").is_some();
        }
    }
    let head = &text[..floor_char_boundary(text, text.len().min(64 * 1024))];
    let yaml_key = |k: &str| {
        head.lines().any(|l| {
            l.strip_prefix(k)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
    };
    let json_key = |k: &str| head.contains(&format!("\"{k}\""));
    (yaml_key("version") && yaml_key("tests")) || (json_key("version") && json_key("tests"))
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte offset of serde_json's 1-based line and column (column counted in bytes).
fn json_error_offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = l.trim_end_matches(['\n', '\r']).len();
            return floor_char_boundary(text, start + column.saturating_sub(1).min(body));
        }
        start += l.len();
    }
    text.len()
}

/// serde_json's message without its position.
fn json_message(e: &serde_json::Error) -> String {
    let raw = e.to_string();
    let cut = raw.find(" at line ").unwrap_or(raw.len());
    raw[..cut].to_string()
}

/// The YAML parser's message, reworded where it speaks to programmers.
fn yaml_message(message: &str) -> String {
    if message.starts_with("multiple YAML documents") {
        return "a suite file holds one YAML document, but this `---` starts a second one".into();
    }
    crate::yaml::reword(message)
}

/// Where deserialising the IR failed: the first test or step that does not deserialise on
/// its own, else the whole suite.
fn serde_failure(tree: &Node) -> (String, Span) {
    let Some(tests) = tree.get("tests") else {
        return ("the suite".into(), tree.span);
    };
    for (i, t) in tests.value.items().iter().enumerate() {
        if serde_json::from_value::<crate::ir::Test>(t.to_json()).is_ok() {
            continue;
        }
        for (j, s) in t
            .get("steps")
            .map(|e| e.value.items())
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            if serde_json::from_value::<crate::ir::Step>(s.to_json()).is_err() {
                let segs = path!["tests", i, "steps", j];
                return (schema::shown_path(&segs), s.span);
            }
        }
        let segs = path!["tests", i];
        return (schema::shown_path(&segs), t.span);
    }
    ("the suite".into(), tree.span)
}

/// The value span of the member at `segs`, if present.
fn value_at(tree: &Node, segs: &[String]) -> Option<Span> {
    let (last, parent) = segs.split_last()?;
    let p = locate(tree, parent);
    if p.node.get(last).is_none() && last.parse::<usize>().is_err() {
        return None;
    }
    let at = locate(tree, segs);
    Some(at.node.span)
}

/// The key span of the member at `segs`, if present.
fn key_at(tree: &Node, segs: &[String]) -> Option<Span> {
    let (last, parent) = segs.split_last()?;
    locate(tree, parent).node.get(last).map(|e| e.key_span)
}

/// The span of the `${inner}` reference inside a scalar node: exact when the reference is
/// written as is in the source (no escapes), else the whole scalar.
fn ref_span(text: &str, node: &Node, inner: &str) -> Span {
    let raw = text.get(node.span.range()).unwrap_or("");
    let written = format!("${{{inner}}}");
    match raw.find(&written) {
        Some(i) => {
            let start = node.span.start as usize + i;
            Span::new(start, start + written.len())
        }
        None => node.span,
    }
}

/// Every `${…}` reference in the template members of a step, with its span.
fn step_refs(text: &str, step: &Node, out: &mut Vec<(String, Span)>) {
    const TEMPLATES: &[&[&str]] = &[
        &["tool", "name"],
        &["tool", "arguments"],
        &["tool", "positional"],
        &["request", "params"],
        &["set", "arguments"],
        &["native", "uri"],
        &["native", "taskId"],
        &["native", "params"],
        &["native", "behavior"],
        &["native", "message"],
        &["assert", "error", "message"],
        &["assert", "error", "matches"],
    ];
    for path in TEMPLATES {
        let mut at = Some(step);
        for seg in *path {
            at = at.and_then(|n| n.get(seg)).map(|e| &e.value);
        }
        if let Some(n) = at {
            scalar_refs(text, n, out);
        }
    }
    let json = step.get("assert").and_then(|a| a.value.get("json"));
    if let Some(j) = json {
        let list: Vec<&Node> = match &j.value.kind {
            tree::Kind::Seq(items) => items.iter().collect(),
            _ => vec![&j.value],
        };
        for a in list {
            for member in [
                "equals",
                "notEquals",
                "contains",
                "matches",
                "notContains",
                "schema",
                "greaterThan",
                "lessThan",
                "atLeast",
                "atMost",
            ] {
                if let Some(e) = a.get(member) {
                    scalar_refs(text, &e.value, out);
                }
            }
            if let Some(name) = a.get("snapshot").and_then(|s| s.value.get("name")) {
                scalar_refs(text, &name.value, out);
            }
        }
    }
}

/// The references in every string of a value (keys excluded).
fn scalar_refs(text: &str, node: &Node, out: &mut Vec<(String, Span)>) {
    match &node.kind {
        tree::Kind::String(s) => {
            for (_, inner) in values::refs(s) {
                out.push((inner.to_string(), ref_span(text, node, inner)));
            }
        }
        tree::Kind::Seq(items) => items.iter().for_each(|n| scalar_refs(text, n, out)),
        tree::Kind::Map(entries) => entries
            .iter()
            .for_each(|e| scalar_refs(text, &e.value, out)),
        _ => {}
    }
}

/// The checks `.mcpr` files get too, where they apply to a suite written as data.
fn semantics(l: &mut Lower<'_>, tree: &Node, suite: &mut Suite, loader: &dyn super::Loader) {
    patterns_and_sets(l, tree, suite);
    let servers: Vec<String> = suite
        .servers
        .as_ref()
        .map(|s| s.keys().map(str::to_string).collect())
        .unwrap_or_default();
    let sources: Vec<String> = suite
        .data_sources
        .as_ref()
        .map(|s| s.keys().map(str::to_string).collect())
        .unwrap_or_default();
    sources_without_origin(l, tree, suite);
    let modules = function_modules(l, tree, suite, loader);

    // What the dependency check needs of each test besides the test itself.
    let mut facts = Vec::with_capacity(suite.tests.len());
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, t) in suite.tests.iter().enumerate() {
        let name_span = value_at(tree, &path!["tests", i, "name"]).unwrap_or(tree.span);
        duplicate_test(l, tree, &mut by_name, i, t, name_span);
        unknown_server_or_source(l, tree, i, t, name_span, &servers, &sources);
        facts.push(test_facts(l, tree, &modules, i, t, name_span));
    }
    // The tests are moved out of the suite for the dependency check, and back.
    let mut built: Vec<BuiltTest> = std::mem::take(&mut suite.tests)
        .into_iter()
        .zip(facts)
        .map(|(test, f)| BuiltTest {
            test,
            explicit_id: f.explicit_id,
            id_span: f.id_span,
            depends: f.depends,
            deps_refs: f.deps_refs,
            exports: f.exports,
        })
        .collect();
    deps::check(l, &mut built);
    suite.tests = built.into_iter().map(|b| b.test).collect();

    unused_sources(l, tree, suite, &sources);
    unknown_budget_tests(l, tree, suite);
}

/// What the dependency check needs of one test besides the test itself (the fields of a
/// `BuiltTest`).
struct TestFacts {
    explicit_id: bool,
    id_span: Span,
    depends: Vec<(String, Span)>,
    deps_refs: Vec<(String, usize, Span)>,
    exports: Vec<(String, Span)>,
}

/// Regular expressions compile (ECMAScript) and do not take exponential time, as in `.mcpr`
/// files; closed sets the schema
/// leaves open (they may be templates) hold, checked from the one list every front end
/// reads (`ir::sets`).
fn patterns_and_sets(l: &mut Lower<'_>, tree: &Node, suite: &Suite) {
    let file = l.entry;
    for (path, pattern) in super::validate::patterns(suite) {
        if let Some(problem) = super::validate::pattern_problem(&pattern) {
            let key = path.len() >= 2 && path[path.len() - 2] == "patternProperties";
            let span = if key {
                key_at(tree, &path)
            } else {
                value_at(tree, &path)
            };
            l.report(problem, file, span.unwrap_or(tree.span));
        }
    }
    for v in crate::ir::sets::closed_values(suite) {
        let span = value_at(tree, &v.path).unwrap_or(tree.span);
        l.report(outside_set(v), file, span);
    }
}

/// Data sources that name nothing to load.
fn sources_without_origin(l: &mut Lower<'_>, tree: &Node, suite: &Suite) {
    let Some(ds) = &suite.data_sources else {
        return;
    };
    for (name, s) in ds.iter() {
        let has_origin = s.provider.is_some()
            || s.file.is_some()
            || s.url.is_some()
            || s.rows.is_some()
            || s.module.is_some()
            || s.spreadsheet_id.is_some();
        if !has_origin {
            let span = key_at(tree, &path!["dataSources", name]).unwrap_or(tree.span);
            l.report(
                Problem::DataSourceWithoutOrigin {
                    name: name.to_string(),
                },
                l.entry,
                span,
            );
        }
    }
}

/// A test named as an earlier one is, pointing at the first.
fn duplicate_test<'t>(
    l: &mut Lower<'_>,
    tree: &Node,
    by_name: &mut HashMap<&'t str, usize>,
    i: usize,
    t: &'t crate::ir::Test,
    name_span: Span,
) {
    let Some(&first) = by_name.get(t.name.as_str()) else {
        by_name.insert(&t.name, i);
        return;
    };
    let first_span = value_at(tree, &path!["tests", first, "name"]).unwrap_or(tree.span);
    l.diags.push(
        Diagnostic::new(
            Problem::DuplicateName {
                kind: "test",
                name: t.name.clone(),
            },
            l.entry,
            name_span,
        )
        .with_secondary(first_span, "first test with this name"),
    );
}

/// The server a test runs against and the data source it takes its rows from are declared.
fn unknown_server_or_source(
    l: &mut Lower<'_>,
    tree: &Node,
    i: usize,
    t: &crate::ir::Test,
    name_span: Span,
    servers: &[String],
    sources: &[String],
) {
    let file = l.entry;
    if let Some(server) = &t.server
        && !servers.contains(server)
    {
        let span = value_at(tree, &path!["tests", i, "server"]).unwrap_or(name_span);
        l.report(
            Problem::UnknownServer {
                name: server.clone(),
                known: servers.to_vec(),
                surface: l.surface,
            },
            file,
            span,
        );
    }
    if let Some(ForEach::Source(s)) = &t.for_each
        && !sources.contains(&s.source)
    {
        let span = value_at(tree, &path!["tests", i, "forEach", "source"]).unwrap_or(name_span);
        l.report(
            Problem::UnknownDataSource {
                name: s.source.clone(),
                suggestion: closest(&s.source, sources.iter().map(String::as_str)),
                surface: l.surface,
            },
            file,
            span,
        );
    }
}

/// Checks test `i`'s steps and gathers what the dependency check needs of it: its
/// dependencies, `${deps.…}` references and exports, with their spans.
fn test_facts(
    l: &mut Lower<'_>,
    tree: &Node,
    modules: &Option<super::functions::FunctionModules>,
    i: usize,
    t: &crate::ir::Test,
    name_span: Span,
) -> TestFacts {
    let file = l.entry;
    let text = l.map.get(file).text();
    let depends = t
        .depends_on
        .iter()
        .flatten()
        .enumerate()
        .map(|(j, d)| {
            let span = value_at(tree, &path!["tests", i, "dependsOn", j]).unwrap_or(name_span);
            (d.clone(), span)
        })
        .collect();
    let mut refs = Vec::new();
    let mut exports = Vec::new();
    for (j, step) in t.steps.iter().enumerate() {
        let step_node = locate(tree, &path!["tests", i, "steps", j]).node;
        step_refs(text, step_node, &mut refs);
        for (name, _) in step.export.iter().flat_map(|e| e.iter()) {
            let span = key_at(tree, &path!["tests", i, "steps", j, "export", name])
                .unwrap_or(step_node.span);
            exports.push((name.to_string(), span));
        }
        result_paths(l, tree, i, j, step);
        unknown_function(l, tree, modules, i, j, step, step_node.span);
    }
    for (j, step) in t.steps.iter().enumerate() {
        lint_codes(l, tree, i, j, step);
    }
    unknown_variables(l, t, &refs);
    let deps_refs = refs
        .into_iter()
        .filter(|(inner, _)| inner.starts_with("deps."))
        .map(|(inner, span)| (inner, file, span))
        .collect();
    let (explicit_id, id_span) = match value_at(tree, &path!["tests", i, "id"]) {
        Some(span) if t.id.is_some() => (true, span),
        _ => (false, name_span),
    };
    TestFacts {
        explicit_id,
        id_span,
        depends,
        deps_refs,
        exports,
    }
}

/// The suite's custom-function modules, read without running them, and the names they
/// declare (`None` when the suite declares none). Their reading problems are reported only
/// when some step calls a function that is not built in.
fn function_modules(
    l: &mut Lower<'_>,
    tree: &Node,
    suite: &Suite,
    loader: &dyn super::Loader,
) -> Option<super::functions::FunctionModules> {
    let named: Vec<(String, Span)> = suite
        .extensions
        .as_ref()
        .and_then(|e| e.functions.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(k, m)| {
            let span = value_at(tree, &path!["extensions", "functions", k]).unwrap_or(tree.span);
            (m.clone(), span)
        })
        .collect();
    if named.is_empty() {
        return None;
    }
    let file = l.entry;
    let shown = l.map.get(file).path().to_string();
    let modules = super::functions::read(loader, file, &shown, &named);
    let calls_custom = suite.tests.iter().flat_map(|t| t.steps.iter()).any(|s| {
        matches!(&s.kind, crate::ir::StepKind::Set(set)
            if !super::BUILT_IN_FUNCTIONS.contains(&set.function.as_str()))
    });
    if calls_custom {
        l.diags.extend(modules.unreadable.iter().cloned());
    }
    Some(modules)
}

/// A `set` step calls a built-in function or one the suite's modules may provide (all of
/// them when a module's names cannot be known without running it).
fn unknown_function(
    l: &mut Lower<'_>,
    tree: &Node,
    modules: &Option<super::functions::FunctionModules>,
    i: usize,
    j: usize,
    step: &crate::ir::Step,
    step_span: Span,
) {
    if let crate::ir::StepKind::Set(set) = &step.kind
        && !super::BUILT_IN_FUNCTIONS.contains(&set.function.as_str())
        && !modules
            .as_ref()
            .is_some_and(|m| m.may_provide(&set.function))
    {
        let span =
            value_at(tree, &path!["tests", i, "steps", j, "set", "function"]).unwrap_or(step_span);
        let names = modules
            .iter()
            .flat_map(|m| m.names.iter().flatten())
            .map(String::as_str);
        l.report(
            Problem::UnknownFunction {
                name: set.function.clone(),
                suggestion: closest(
                    &set.function,
                    super::BUILT_IN_FUNCTIONS.iter().copied().chain(names),
                ),
                surface: l.surface,
                modules: modules
                    .as_ref()
                    .map(|m| m.modules.clone())
                    .unwrap_or_default(),
            },
            l.entry,
            span,
        );
    }
}

/// Data sources no test takes its rows from are not loaded (MCPLANG906).
fn unused_sources(l: &mut Lower<'_>, tree: &Node, suite: &Suite, sources: &[String]) {
    for name in sources {
        let used = suite
            .tests
            .iter()
            .any(|t| matches!(&t.for_each, Some(ForEach::Source(s)) if s.source == *name));
        if !used {
            let span = key_at(tree, &path!["dataSources", name]).unwrap_or(tree.span);
            l.report(
                Problem::UnusedDataSource { name: name.clone() },
                l.entry,
                span,
            );
        }
    }
}

/// A budget names a test of the suite (or a row of one that iterates), or every test (`*`).
fn unknown_budget_tests(l: &mut Lower<'_>, tree: &Node, suite: &Suite) {
    for (k, b) in suite.budgets.iter().flatten().enumerate() {
        if b.test == "*" {
            continue;
        }
        let known = suite.tests.iter().any(|t| {
            t.name == b.test
                || (t.for_each.is_some() && b.test.starts_with(&format!("{} [", t.name)))
        });
        if !known {
            let span = value_at(tree, &path!["budgets", k, "test"]).unwrap_or(tree.span);
            l.report(
                Problem::UnknownBudgetTest {
                    name: b.test.clone(),
                    suggestion: closest(&b.test, suite.tests.iter().map(|t| t.name.as_str())),
                    surface: l.surface,
                },
                l.entry,
                span,
            );
        }
    }
}

/// References whose first segment no declaration of the test provides: its `variables`
/// (by their first segment, so `flow0.a` declares `flow0`), what its steps capture or set,
/// `row` when it iterates (or has a `row` variable), and `env`, `deps`, `state`.
fn unknown_variables(l: &mut Lower<'_>, t: &crate::ir::Test, refs: &[(String, Span)]) {
    let mut known: Vec<&str> = vec!["env", "deps", "state"];
    if t.for_each.is_some() {
        known.push("row");
    }
    for k in t.variables.iter().flat_map(|v| v.keys()) {
        known.push(values::head(k));
    }
    for step in &t.steps {
        known.extend(step.capture.iter().flat_map(|c| c.keys()));
        match &step.kind {
            crate::ir::StepKind::Set(s) => known.push(values::head(&s.variable)),
            // `prompt` and `save-text` set the variable they name.
            crate::ir::StepKind::Native(n) => {
                if let Some(v) = n.variable() {
                    known.push(v);
                }
            }
            _ => {}
        }
    }
    for (inner, span) in refs {
        let head = values::head(inner);
        if values::incomplete_namespace_ref(inner) {
            l.report(
                Problem::IncompleteReference {
                    reference: inner.clone(),
                },
                l.entry,
                *span,
            );
            continue;
        }
        if known.contains(&head) {
            continue;
        }
        l.report(
            Problem::UnknownVariable {
                reference: inner.clone(),
                flow: None,
                suggestion: closest(head, known.iter().copied()),
                surface: l.surface,
            },
            l.entry,
            *span,
        );
    }
}

/// Result paths of a step (captures, exports, assertions) that cannot be evaluated.
/// The `ignore` codes of a `lint-clean` step that are no lint rule.
fn lint_codes(l: &mut Lower<'_>, tree: &Node, i: usize, j: usize, step: &crate::ir::Step) {
    let crate::ir::StepKind::Native(n) = &step.kind else {
        return;
    };
    let crate::ir::NativeStep::LintClean(a) = n.as_ref() else {
        return;
    };
    for (k, code) in a.ignore.iter().flatten().enumerate() {
        if crate::lint_rules::rule_of(code).is_some() {
            continue;
        }
        let at = path!["tests", i, "steps", j, "native", "ignore", k];
        let span = value_at(tree, &at).unwrap_or(tree.span);
        l.report(
            Problem::UnknownLintRule {
                code: code.clone(),
                suggestion: closest(
                    &code.to_ascii_uppercase(),
                    crate::lint_rules::RULES.iter().map(|r| r.code),
                ),
            },
            l.entry,
            span,
        );
    }
}

fn result_paths(l: &mut Lower<'_>, tree: &Node, i: usize, j: usize, step: &crate::ir::Step) {
    let file = l.entry;
    let mut check = |segs: &[String], path: &str| {
        if let Err(reason) = values::check_path(path) {
            let span = value_at(tree, segs).unwrap_or(tree.span);
            l.report(
                Problem::BadResultPath {
                    path: path.to_string(),
                    reason,
                },
                file,
                span,
            );
        }
    };
    for (name, path) in step.capture.iter().flat_map(|c| c.iter()) {
        check(&path!["tests", i, "steps", j, "capture", name], path);
    }
    for (name, e) in step.export.iter().flat_map(|c| c.iter()) {
        check(
            &path!["tests", i, "steps", j, "export", name, "path"],
            &e.path,
        );
    }
    if let Some(json) = step.assert.as_ref().and_then(|a| a.json.as_ref()) {
        let list = json.as_slice();
        let single = matches!(json, crate::ir::JsonAssertions::One(_));
        for (k, a) in list.iter().enumerate() {
            let Some(p) = &a.path else { continue };
            if single {
                check(&path!["tests", i, "steps", j, "assert", "json", "path"], p);
            } else {
                check(
                    &path!["tests", i, "steps", j, "assert", "json", k, "path"],
                    p,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suite read from the whole document, when it satisfies the schema and the types.
    fn read_whole(tree: &Node) -> Option<Suite> {
        let doc = tree.to_json();
        schema::is_valid(&doc)
            .then(|| serde_json::from_value(doc).ok())
            .flatten()
    }

    #[test]
    fn a_test_at_a_time_reads_what_the_whole_document_reads() {
        let mut suites = 0;
        for (name, text) in tree::tests::repository_texts() {
            let Ok(tree) = tree::read_within(&text, 1 << 20) else {
                continue;
            };
            let whole = read_whole(&tree);
            suites += usize::from(whole.is_some());
            assert_eq!(a_test_at_a_time(&tree), whole, "{name}");
        }
        assert!(suites > 20, "{suites} suites");
        // A mistake in any test, or in the suite's own settings, leaves the suite to the
        // whole document, which words it.
        let test = |n: usize| {
            format!("  - name: t{n}\n    steps:\n      - request:\n          method: ping\n")
        };
        let good: String = (0..4).map(test).collect();
        for bad in [
            format!("version: 1\ntests:\n{good}  - name: t9\n    stepz: []\n"),
            format!("version: 1\ntests:\n  - name: t9\n    stepz: []\n{good}"),
            format!("version: 1\nnmae: x\ntests:\n{good}"),
            format!("version: 1\ntests:\n{}  - name: 5\n    steps: []\n", good),
        ] {
            let tree = tree::read_within(&bad, 1 << 20).unwrap();
            assert_eq!(a_test_at_a_time(&tree), None, "{bad}");
            assert_eq!(read_whole(&tree), None, "{bad}");
        }
        let fine = format!("version: 1\ntests:\n{good}");
        let tree = tree::read_within(&fine, 1 << 20).unwrap();
        let suite = a_test_at_a_time(&tree).expect("a valid suite");
        assert_eq!(suite.tests.len(), 4);
        assert_eq!(Some(suite), read_whole(&tree));
    }
}
