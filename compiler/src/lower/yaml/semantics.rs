//! The semantic checks of a YAML or JSON suite that `.mcpr` files get too (step 5 of
//! [`super`]), located through the suite's tree: a test's own checks as each test is read,
//! then those that need every test.

use super::super::deps::{self, BuiltTest};
use super::super::{BUILT_IN_FUNCTIONS, Loader, Lower, validate};
use super::schema::locate;
use super::tree::{self, Node};
use super::{key_at, outside_set, value_at};
use crate::diagnostics::{Diagnostic, Problem};
use crate::ir::{ForEach, Suite, Test};
use crate::names::closest;
use crate::source::Span;
use crate::values;
use std::collections::HashMap;

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

/// The checks `.mcpr` files get too, where they apply to a suite written as data, on a
/// suite read whole.
pub(super) fn check(l: &mut Lower<'_>, tree: &Node, suite: &mut Suite, loader: &dyn Loader) {
    let mut checks = Semantics::new(l, tree, suite, loader);
    for (i, t) in suite.tests.iter().enumerate() {
        checks.test(l, tree, i, t);
    }
    checks.finish(l, tree, suite);
}

/// The semantic checks of a suite, a test at a time: [`Semantics::test`] judges what a
/// test's steps hold as soon as the test is read, so `check` can drop the steps at once
/// (a large suite's IR is never whole in memory); [`Semantics::finish`] judges what needs
/// every test (names, dependencies, budgets), which the steps play no part in.
pub(super) struct Semantics {
    servers: Vec<String>,
    sources: Vec<String>,
    modules: Option<super::super::functions::FunctionModules>,
    /// Some step calls a function that is not built in.
    calls_custom: bool,
    /// What the dependency check needs of each test judged so far.
    facts: Vec<TestFacts>,
}

impl Semantics {
    /// Judges what the suite declares besides its tests (`suite`'s tests are not read).
    pub(super) fn new(l: &mut Lower<'_>, tree: &Node, suite: &Suite, loader: &dyn Loader) -> Self {
        let servers = suite
            .servers
            .as_ref()
            .map(|s| s.keys().map(str::to_string).collect())
            .unwrap_or_default();
        let sources = suite
            .data_sources
            .as_ref()
            .map(|s| s.keys().map(str::to_string).collect())
            .unwrap_or_default();
        sources_without_origin(l, tree, suite);
        let modules = function_modules(l, tree, suite, loader);
        Semantics {
            servers,
            sources,
            modules,
            calls_custom: false,
            facts: Vec::new(),
        }
    }

    /// Judges test `i` on its own: its steps' patterns, closed values, result paths,
    /// references, functions and lint codes; keeps what [`Semantics::finish`] needs of it.
    pub(super) fn test(&mut self, l: &mut Lower<'_>, tree: &Node, i: usize, t: &Test) {
        let mut patterns = Vec::new();
        validate::test_patterns(t, i, &mut patterns);
        let mut outside = Vec::new();
        crate::ir::sets::test_values(t, i, &mut outside);
        report_patterns_and_sets(l, tree, patterns, outside);
        self.calls_custom |= t.steps.iter().any(|s| {
            matches!(&s.kind, crate::ir::StepKind::Set(set)
                if !BUILT_IN_FUNCTIONS.contains(&set.function.as_str()))
        });
        let name_span = value_at(tree, &path!["tests", i, "name"]).unwrap_or(tree.span);
        let facts = test_facts(l, tree, &self.modules, i, t, name_span);
        self.facts.push(facts);
    }

    /// The checks that need every test, once each was judged by [`Semantics::test`] in
    /// order (their steps may be gone).
    pub(super) fn finish(self, l: &mut Lower<'_>, tree: &Node, suite: &mut Suite) {
        let mut patterns = Vec::new();
        validate::source_patterns(suite, &mut patterns);
        let outside = crate::ir::sets::suite_values(suite);
        report_patterns_and_sets(l, tree, patterns, outside);
        if self.calls_custom
            && let Some(m) = &self.modules
        {
            l.diags.extend(m.unreadable.iter().cloned());
        }
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, t) in suite.tests.iter().enumerate() {
            let name_span = value_at(tree, &path!["tests", i, "name"]).unwrap_or(tree.span);
            duplicate_test(l, tree, &mut by_name, i, t, name_span);
            unknown_server_or_source(l, tree, i, t, name_span, &self.servers, &self.sources);
        }
        // The tests are moved out of the suite for the dependency check, and back.
        let built: Vec<BuiltTest> = std::mem::take(&mut suite.tests)
            .into_iter()
            .zip(self.facts)
            .map(|(test, f)| {
                let links = deps::Links::of(deps::Links {
                    depends: f.depends,
                    deps_refs: f.deps_refs,
                    exports: f.exports,
                });
                BuiltTest::new(test, (f.explicit_id, f.id_span), links)
            })
            .collect();
        deps::check(l, &built);
        suite.tests = built.into_iter().filter_map(BuiltTest::into_test).collect();

        unused_sources(l, tree, suite, &self.sources);
        unknown_budget_tests(l, tree, suite);
    }
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
/// files; closed sets the schema leaves open (they may be templates) hold, checked from the
/// one list every front end reads (`ir::sets`).
fn report_patterns_and_sets(
    l: &mut Lower<'_>,
    tree: &Node,
    patterns: Vec<(Vec<String>, String)>,
    outside: Vec<crate::ir::sets::OutsideSet>,
) {
    let file = l.entry;
    for (path, pattern) in patterns {
        if let Some(problem) = validate::pattern_problem(&pattern) {
            let key = path.len() >= 2 && path[path.len() - 2] == "patternProperties";
            let span = if key {
                key_at(tree, &path)
            } else {
                value_at(tree, &path)
            };
            l.report(problem, file, span.unwrap_or(tree.span));
        }
    }
    for v in outside {
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
    t: &'t Test,
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
    t: &Test,
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
    modules: &Option<super::super::functions::FunctionModules>,
    i: usize,
    t: &Test,
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
/// when some step calls a function that is not built in ([`Semantics::finish`]).
fn function_modules(
    l: &mut Lower<'_>,
    tree: &Node,
    suite: &Suite,
    loader: &dyn Loader,
) -> Option<super::super::functions::FunctionModules> {
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
    Some(super::super::functions::read(loader, file, &shown, &named))
}

/// A `set` step calls a built-in function or one the suite's modules may provide (all of
/// them when a module's names cannot be known without running it).
fn unknown_function(
    l: &mut Lower<'_>,
    tree: &Node,
    modules: &Option<super::super::functions::FunctionModules>,
    i: usize,
    j: usize,
    step: &crate::ir::Step,
    step_span: Span,
) {
    if let crate::ir::StepKind::Set(set) = &step.kind
        && !BUILT_IN_FUNCTIONS.contains(&set.function.as_str())
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
                    BUILT_IN_FUNCTIONS.iter().copied().chain(names),
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
fn unknown_variables(l: &mut Lower<'_>, t: &Test, refs: &[(String, Span)]) {
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
