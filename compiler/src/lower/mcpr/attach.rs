//! Expectations and modifiers attached to the step before them, and the references a step
//! or line reads.

use super::*;
use crate::ir::{Fault, FaultKind};
use crate::syntax::FaultPhrase;

/// Every reference in the templates of a step (what it sends and what it expects).
pub fn step_refs<'s>(step: &'s Step, f: &mut dyn FnMut(&'s str)) {
    match &step.kind {
        StepKind::Tool(t) => {
            values::refs(&t.name).for_each(|(_, r)| f(r));
            if let Some(a) = &t.arguments {
                a.values().for_each(|v| values::each_ref(v, f));
            }
            for v in t.positional.iter().flatten() {
                values::each_ref(v, f);
            }
        }
        StepKind::Request(r) => {
            if let Some(p) = &r.params {
                values::each_ref(p, f);
            }
        }
        StepKind::Set(s) => {
            if let Some(a) = &s.arguments {
                a.values().for_each(|v| values::each_ref(v, f));
            }
        }
        StepKind::Native(n) => {
            for s in [n.uri(), n.task_id()].into_iter().flatten() {
                values::refs(s).for_each(|(_, r)| f(r));
            }
            if let Some(p) = n.params() {
                values::each_ref(p, f);
            }
            if let Some(b) = n.behavior() {
                b.each_string(&mut |s| values::refs(s).for_each(|(_, r)| f(r)));
            }
        }
    }
    let Some(a) = &step.assert else { return };
    if let Some(e) = &a.error {
        for s in [&e.message, &e.matches].into_iter().flatten() {
            values::refs(s).for_each(|(_, r)| f(r));
        }
    }
    for x in a.json.as_ref().map_or(&[][..], |j| j.as_slice()) {
        for v in [
            &x.equals,
            &x.not_equals,
            &x.contains,
            &x.not_contains,
            &x.greater_than,
            &x.less_than,
            &x.at_least,
            &x.at_most,
        ]
        .into_iter()
        .flatten()
        {
            values::each_ref(v, f);
        }
        if let Some(m) = &x.matches {
            values::refs(m).for_each(|(_, r)| f(r));
        }
        if let Some(schema) = &x.schema {
            schema.values().for_each(|v| values::each_ref(v, f));
        }
        if let Some(snap) = &x.snapshot {
            values::refs(&snap.name).for_each(|(_, r)| f(r));
        }
    }
}

/// Records `${deps.…}` references written on a line or in its block, with exact spans.
pub(super) fn collect_deps_refs(l: &Lower<'_>, b: &mut TestBuilder, node: &Node, file: usize) {
    let mut span = node.span;
    if let Some(y) = &node.yaml {
        span = span.cover(y.span);
    }
    // Most lines read no dependency: one byte search instead of collecting references.
    if !crate::bytes::contains(&l.map.get(file).text()[span.range()], "${deps.") {
        return;
    }
    for (inner, span) in node_refs(l.map, node, file) {
        if inner.starts_with("deps.") {
            b.deps_refs.push((inner.to_string(), file, span));
        }
    }
}

pub(super) fn assert(step: &mut Step) -> &mut Assert {
    step.assert.get_or_insert_with(Box::default)
}

pub(super) fn assertion(path: String) -> Assertion {
    Assertion {
        path: Some(path),
        ..Default::default()
    }
}

/// Applies an expectation or modifier to step `i`.
pub(super) fn attach(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    i: usize,
    block: &mut Block<'_>,
    scope: &Scope<'_>,
) {
    let node = block.node();
    let file = scope.file;
    // An assertion's failure is reported at its own `Expect` line.
    let here = l.location(file, node.span);
    let step = &mut b.steps[i];
    // `Call tool … with progress` yields `{result, progress}`: `result.…` is a member.
    let nested = matches!(&step.kind, StepKind::Native(n)
        if matches!(n.as_ref(), NativeStep::Request(r) if r.progress == Some(true)));
    let json_check = match &node.stmt {
        Stmt::ExpectSuccess
        | Stmt::ExpectError
        | Stmt::ExpectErrorCode { .. }
        | Stmt::ExpectErrorMessage { .. }
        | Stmt::ExpectFinishWithin { .. } => {
            expect_outcome(step, &node.stmt, &here, scope);
            None
        }
        Stmt::ExpectValue {
            path,
            compare,
            value,
        } => l
            .path_in(file, path, nested)
            .and_then(|p| value_assertion(p, *compare, value, scope)),
        Stmt::ExpectExists { path, absent } => l.path_in(file, path, nested).map(|p| Assertion {
            exists: Some(!absent),
            ..assertion(p)
        }),
        Stmt::ExpectLength { path, count, .. } => count
            .value
            .and_then(|n| u64::try_from(n).ok())
            .and_then(|n| {
                l.path_in(file, path, nested).map(|p| Assertion {
                    length: Some(n),
                    ..assertion(p)
                })
            }),
        Stmt::ExpectType { path, kind } => l.path_in(file, path, nested).map(|p| Assertion {
            kind: Some(json_type(*kind)),
            ..assertion(p)
        }),
        Stmt::ExpectMatchesSchema { path } => schema_assertion(l, block, path, scope, nested),
        Stmt::ExpectSnapshot {
            path,
            name,
            ignoring,
        } => snapshot_assertion(l, path, name, ignoring, scope, nested),
        Stmt::Save { path, variable } => {
            save(l, b, i, path, variable, scope, nested);
            None
        }
        Stmt::Export {
            path,
            name,
            aggregate,
            sensitive,
        } => {
            export(l, b, i, path, name, *aggregate, *sensitive, file, nested);
            None
        }
        Stmt::Fault { fault } => {
            attach_fault(l, step, fault, file, node.span);
            None
        }
        Stmt::WaitUpTo { duration } => {
            if let Some(ms) = duration.ms {
                match &mut step.kind {
                    StepKind::Native(n) => *n.timeout_ms_mut() = Some(ms),
                    _ => step.timeout_ms = Some(ms),
                }
            }
            None
        }
        _ => None,
    };
    if let Some(mut a) = json_check {
        a.source = Some(here);
        push_json(&mut b.steps[i], a);
    }
}

/// `Expect success`, `Expect error …` and `Expect to finish within …`: the step's outcome
/// and duration, reported at the first such line.
fn expect_outcome(step: &mut Step, stmt: &Stmt, here: &SourceLocation, scope: &Scope<'_>) {
    // An invalid duration was reported; the step keeps no assertion of it.
    if let Stmt::ExpectFinishWithin { duration } = stmt
        && duration.ms.is_none()
    {
        return;
    }
    let a = assert(step);
    match stmt {
        Stmt::ExpectSuccess => a.status = Some(Status::Success),
        Stmt::ExpectError => a.status = Some(Status::Error),
        Stmt::ExpectErrorCode { code } => {
            a.status = Some(Status::Error);
            if let Some(c) = code.value {
                a.error.get_or_insert_with(ErrorExpectation::default).code = Some(c);
            }
        }
        Stmt::ExpectErrorMessage { compare, value } => {
            a.status = Some(Status::Error);
            let e = a.error.get_or_insert_with(ErrorExpectation::default);
            let v = scope.rename_str(&value.value);
            match compare {
                Compare::Matches => e.matches = Some(v),
                // `contains` is a substring test: a regex that matches the text literally.
                Compare::Contains => e.matches = Some(values::regex_escape(&v)),
                _ => e.message = Some(v),
            }
        }
        Stmt::ExpectFinishWithin { duration } => a.max_duration_ms = duration.ms,
        _ => return,
    }
    a.source.get_or_insert_with(|| here.clone());
}

/// `Expect "PATH" COMPARE VALUE`: the value typed as written, after the flow's renames.
fn value_assertion(
    p: String,
    compare: Compare,
    value: &Text,
    scope: &Scope<'_>,
) -> Option<Assertion> {
    let mut a = assertion(p);
    let typed_text = |text: &str| {
        let mut v = values::typed(text);
        scope.rename_value(&mut v);
        v
    };
    let typed = || typed_text(&value.value);
    match compare {
        Compare::Equals => a.equals = Some(typed()),
        Compare::NotEquals => a.not_equals = Some(typed()),
        Compare::Contains => a.contains = Some(typed()),
        Compare::NotContains => a.not_contains = Some(typed()),
        // A regular expression is text, never typed.
        Compare::Matches => a.matches = Some(scope.rename_str(&value.value)),
        Compare::GreaterThan => a.greater_than = Some(typed()),
        Compare::LessThan => a.less_than = Some(typed()),
        Compare::AtLeast => a.at_least = Some(typed()),
        Compare::AtMost => a.at_most = Some(typed()),
        Compare::Between => {
            // Checked to be two bounds by the syntax checks.
            let (low, high) = crate::syntax::forms::between(&value.value)?;
            a.at_least = Some(typed_text(low));
            a.at_most = Some(typed_text(high));
        }
        Compare::Empty => a.length = Some(0),
        Compare::NotEmpty => a.min_length = Some(1),
        // Reported by the syntax checks: an expectation has no `is one of`.
        Compare::OneOf => return None,
    }
    Some(a)
}

/// The JSON type `Expect "PATH" is a KIND` checks.
fn json_type(kind: ValueType) -> JsonType {
    match kind {
        ValueType::String => JsonType::String,
        ValueType::Number => JsonType::Number,
        ValueType::Boolean => JsonType::Boolean,
        ValueType::Object => JsonType::Object,
        ValueType::Array => JsonType::Array,
        ValueType::Null => JsonType::Null,
        // `date` and `json` are column types; the parser keeps them out of `is a`.
        ValueType::Date | ValueType::Json => JsonType::String,
    }
}

/// `Expect "PATH" matches the schema:` and its block; a pattern of the schema that is no
/// regular expression of the dialect, or that can take exponential time, is reported.
fn schema_assertion(
    l: &mut Lower<'_>,
    block: &mut Block<'_>,
    path: &Text,
    scope: &Scope<'_>,
    nested: bool,
) -> Option<Assertion> {
    let node = block.node();
    let file = scope.file;
    let schema = block.map()?;
    let mut found = Vec::new();
    super::super::validate::schema_patterns(&schema, &mut Vec::new(), &mut found);
    for (_, pattern) in found {
        if let Some(problem) = super::super::validate::pattern_problem(&pattern) {
            // At the pattern as written in the block, when it is there verbatim.
            let at = node
                .yaml
                .as_ref()
                .and_then(|y| {
                    let text = &l.map.get(file).text()[y.span.range()];
                    let i = text.find(pattern.as_str())?;
                    let start = y.span.start as usize + i;
                    Some(Span::new(start, start + pattern.len()))
                })
                .unwrap_or(node.span);
            l.report(problem, file, at);
        }
    }
    let mut v = Value::Object(schema);
    scope.rename_value(&mut v);
    match (l.path_in(file, path, nested), v) {
        (Some(p), Value::Object(schema)) => Some(Assertion {
            schema: Some(schema),
            ..assertion(p)
        }),
        _ => None,
    }
}

/// `Expect "PATH" matches the snapshot "NAME" ignoring …`.
fn snapshot_assertion(
    l: &mut Lower<'_>,
    path: &Text,
    name: &Text,
    ignoring: &[Text],
    scope: &Scope<'_>,
    nested: bool,
) -> Option<Assertion> {
    let file = scope.file;
    let mut ignore = Vec::new();
    for p in ignoring {
        if let Some(p) = l.path_in(file, p, nested) {
            push_unique(&mut ignore, p);
        }
    }
    l.path_in(file, path, nested).map(|p| Assertion {
        snapshot: Some(SnapshotAssertion {
            name: scope.rename_str(&name.value),
            ignore: (!ignore.is_empty()).then_some(ignore),
        }),
        ..assertion(p)
    })
}

/// `Save "PATH" as VARIABLE`: a capture of step `i`; a save at the top of the entry file is
/// remembered for the checks of what reads it.
fn save(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    i: usize,
    path: &Text,
    variable: &Text,
    scope: &Scope<'_>,
    nested: bool,
) {
    let file = scope.file;
    let Some(p) = l.path_in(file, path, nested) else {
        return;
    };
    b.steps[i]
        .capture
        .get_or_insert_with(OrderedMap::new)
        .insert(variable.value.clone(), p);
    if scope.frames.is_empty() && file == l.entry {
        b.saves.push((variable.value.clone(), variable.span, i));
    }
}

/// `Export "PATH" as NAME`: a value step `i` hands to the tests that depend on this one.
#[allow(clippy::too_many_arguments)]
fn export(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    i: usize,
    path: &Text,
    name: &Text,
    aggregate: Option<crate::syntax::Aggregate>,
    sensitive: bool,
    file: usize,
    nested: bool,
) {
    let Some(p) = l.path_in(file, path, nested) else {
        return;
    };
    b.steps[i]
        .export
        .get_or_insert_with(OrderedMap::new)
        .insert(
            name.value.clone(),
            Export {
                path: p,
                aggregate: Some(match aggregate {
                    None => ir::Aggregate::Single,
                    Some(crate::syntax::Aggregate::List) => ir::Aggregate::List,
                    Some(crate::syntax::Aggregate::Map) => ir::Aggregate::Map,
                }),
                sensitive: sensitive.then_some(true),
            },
        );
    if file == l.entry {
        b.exports.push((name.value.clone(), name.span));
    }
}

/// `Drop the response`, `Delay the response by …`, …: a fault of a tool call or request,
/// reported on any other step or on a step that has one already.
fn attach_fault(l: &mut Lower<'_>, step: &mut Step, fault: &FaultPhrase, file: usize, at: Span) {
    let (phrase, kind, delay_ms) = match fault {
        FaultPhrase::Drop => ("Drop the response", FaultKind::Drop, None),
        FaultPhrase::Delay(d) => ("Delay the response by", FaultKind::Delay, d.ms),
        FaultPhrase::Disconnect => ("Disconnect after the request", FaultKind::Disconnect, None),
        FaultPhrase::Duplicate => ("Duplicate the response", FaultKind::Duplicate, None),
        FaultPhrase::Corrupt => ("Corrupt the response", FaultKind::Corrupt, None),
    };
    let misplaced = match &step.kind {
        _ if step.fault.is_some() => Some(None),
        StepKind::Tool(_) | StepKind::Request(_) => None,
        StepKind::Set(_) => Some(Some("a `Set … using` step".to_string())),
        StepKind::Native(n) => {
            let name = serde_json::to_value(n.action()).unwrap_or_default();
            Some(Some(format!(
                "the native action `{}`",
                name.as_str().unwrap_or("native")
            )))
        }
    };
    match misplaced {
        Some(step) => l.report(
            Problem::MisplacedFault {
                phrase: phrase.into(),
                step,
            },
            file,
            at,
        ),
        // A delay whose duration is invalid was reported as MCPLANG106.
        None if kind == FaultKind::Delay && delay_ms.is_none() => {}
        None => step.fault = Some(Fault { kind, delay_ms }),
    }
}

pub(super) fn push_json(step: &mut Step, a: Assertion) {
    let assert = step.assert.get_or_insert_with(Box::default);
    match &mut assert.json {
        Some(JsonAssertions::List(list)) => list.push(a),
        Some(JsonAssertions::One(one)) => {
            let first = std::mem::take(one.as_mut());
            assert.json = Some(JsonAssertions::List(vec![first, a]));
        }
        None => assert.json = Some(JsonAssertions::List(vec![a])),
    }
}
