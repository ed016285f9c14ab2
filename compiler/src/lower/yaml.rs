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
use crate::diagnostics::Problem;
use crate::diagnostics::problem::AliasKind;
use crate::ir::{Suite, Test};
use crate::source::Span;
use schema::locate;
use semantics::Semantics;
use tree::{Node, ReadError};

/// Path segments from string literals and indexes.
macro_rules! path {
    ($($seg:expr),* $(,)?) => {
        [$($seg.to_string()),*]
    };
}

mod semantics;

/// The problem of a value outside its closed set.
pub(super) fn outside_set(v: crate::ir::sets::OutsideSet) -> Problem {
    Problem::InvalidValue {
        context: v.what.to_string(),
        found: v.found,
        valid: v.valid.iter().map(|s| s.to_string()).collect(),
    }
}

/// Lowers the entry file of `l` as a YAML or JSON suite. Without `whole`, only the
/// diagnostics are wanted (`check`): each test is judged as it is read and its steps
/// dropped, so the suite returned has tests without steps.
pub fn lower(l: &mut Lower<'_>, loader: &dyn super::Loader, whole: bool) -> Option<Suite> {
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
    let judged = if whole {
        None
    } else {
        judged_a_test_at_a_time(l, &tree, loader)
    };
    let mut suite = match judged {
        Some(suite) => suite,
        None => {
            let mut suite = match a_test_at_a_time(&tree) {
                Some(suite) => suite,
                None => whole_document(l, &tree)?,
            };
            semantics::check(l, &tree, &mut suite, loader);
            suite
        }
    };
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
    let (mut suite, rest) = shell(tree)?;
    suite.tests.reserve(rest.len());
    for t in rest {
        suite.tests.push(read_test(t)?);
    }
    Some(suite)
}

/// [`a_test_at_a_time`] with the semantic checks made as each test is read, after which
/// its steps, variables and data are dropped: what `check` needs, in the memory of the
/// tree and one test's IR. `None` when a part does not satisfy the schema or the types;
/// what was reported of the tests judged so far is then taken back.
fn judged_a_test_at_a_time(
    l: &mut Lower<'_>,
    tree: &Node,
    loader: &dyn super::Loader,
) -> Option<Suite> {
    let (mut suite, rest) = shell(tree)?;
    let before = l.set_aside();
    let mut checks = Semantics::new(l, tree, &suite, loader);
    let judge = |checks: &mut Semantics, l: &mut Lower<'_>, i: usize, t: &mut Test| {
        checks.test(l, tree, i, t);
        t.steps = Vec::new();
        t.variables = None;
        t.data = None;
    };
    if let Some(first) = suite.tests.first_mut() {
        judge(&mut checks, l, 0, first);
    }
    suite.tests.reserve(rest.len());
    for (k, node) in rest.iter().enumerate() {
        let Some(mut t) = read_test(node) else {
            l.resume(before, false);
            return None;
        };
        judge(&mut checks, l, k + 1, &mut t);
        suite.tests.push(t);
    }
    checks.finish(l, tree, &mut suite);
    l.resume(before, true);
    Some(suite)
}

/// The suite with its first test only, judged by the schema and read into the IR, and
/// the nodes of its other tests.
fn shell(tree: &Node) -> Option<(Suite, &[Node])> {
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
    let suite: Suite = serde_json::from_value(shell).ok()?;
    Some((suite, tests.get(1..).unwrap_or_default()))
}

/// One test (a member of `tests`) judged by the schema on its own and read into the IR.
fn read_test(node: &Node) -> Option<Test> {
    let doc = node.to_json();
    if !schema::test_is_valid(&doc) {
        return None;
    }
    serde_json::from_value(doc).ok()
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
        if serde_json::from_value::<Test>(t.to_json()).is_ok() {
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
