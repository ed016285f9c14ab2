//! Validation of a suite document against `docs/schema/suite.schema.json`, with every schema
//! error turned into one located problem: the instance path of the error is walked down the
//! located tree to the key or value the user wrote.
//!
//! `oneOf` errors are resolved to the branch the user most likely meant (the one whose
//! discriminating member — `transport`, a step kind — fits), so one mistake gives one
//! diagnostic about that mistake rather than a report on every alternative.

use super::lean::{LeanJson, LeanRef};
use super::tree::{Kind, Node};
use crate::diagnostics::Problem;
use crate::ir::SCHEMA_TEXT;
use crate::names::closest;
use crate::source::Span;
use jsonschema::error::ValidationErrorKind;
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::Value;
use std::sync::OnceLock;

/// A schema problem and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// What is wrong.
    pub problem: Problem,
    /// The key or value to point at.
    pub span: Span,
}

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(SCHEMA_TEXT).expect("the suite schema is JSON"))
}

fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| jsonschema::draft202012::new(schema()).expect("the suite schema compiles"))
}

/// Every schema problem of the document, in document order, one per mistake.
pub fn check(tree: &Node, doc: &Value) -> Vec<Found> {
    // The common case, answered without gathering errors.
    if validator().is_valid(doc) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in validator().iter_errors(doc) {
        explain(tree, &e, &mut out);
    }
    // A misspelt required member is one mistake: keep "unknown `nmae`, did you mean
    // `name`?" and drop "missing `name`".
    let misspelt: Vec<(String, String)> = out
        .iter()
        .filter_map(|f| match &f.problem {
            Problem::UnknownField {
                context,
                suggestion: Some(s),
                ..
            } => Some((context.clone(), s.clone())),
            _ => None,
        })
        .collect();
    out.retain(|f| match &f.problem {
        Problem::MissingField { context, fields } if fields.len() == 1 => !misspelt
            .iter()
            .any(|(c, s)| c == context && *s == fields[0]),
        _ => true,
    });
    // A member unknown both to an object and to the narrower form it takes (a native
    // action's own members) is one mistake: keep the narrower list of valid names.
    let narrower = |f: &Found| match &f.problem {
        Problem::UnknownField { field, valid, .. } => out.iter().any(|g| match &g.problem {
            Problem::UnknownField {
                field: other,
                valid: fewer,
                ..
            } => g.span == f.span && other == field && fewer.len() < valid.len(),
            _ => false,
        }),
        _ => false,
    };
    let wider: Vec<bool> = out.iter().map(narrower).collect();
    let mut keep = wider.iter().map(|w| !w);
    out.retain(|_| keep.next().unwrap_or(true));
    out.sort_by_key(|f| (f.span.start, f.span.end));
    out.dedup();
    out
}

/// Whether the document satisfies the schema (no words built).
pub fn is_valid(doc: &Value) -> bool {
    validator().is_valid(doc)
}

/// The schema of one test (a member of `tests`): the suite schema's `test` definition.
fn test_schema() -> Value {
    let whole = schema();
    serde_json::json!({
        "$schema": whole["$schema"],
        "$ref": "#/$defs/test",
        "$defs": whole["$defs"],
    })
}

/// Whether one test (a member of `tests`) satisfies the schema's `test` definition, so a
/// suite can be checked a test at a time without the whole document in memory at once.
pub fn test_is_valid(test: &Value) -> bool {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            jsonschema::draft202012::new(&test_schema()).expect("the test definition compiles")
        })
        .is_valid(test)
}

/// [`is_valid`] of a lean document ([`super::lean`]).
pub fn lean_is_valid(doc: LeanRef<'_>) -> bool {
    static VALIDATOR: OnceLock<Validator<LeanJson>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| lean_validator(schema()))
        .is_valid(doc)
}

/// [`test_is_valid`] of a lean document ([`super::lean`]).
pub fn lean_test_is_valid(test: LeanRef<'_>) -> bool {
    static VALIDATOR: OnceLock<Validator<LeanJson>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| lean_validator(&test_schema()))
        .is_valid(test)
}

fn lean_validator(schema: &Value) -> Validator<LeanJson> {
    jsonschema::options_for::<LeanJson>()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("the suite schema compiles")
}

/// Every schema problem of the document with the path of the value it is about (the
/// `.mcpr` check of a lowered suite locates them itself).
pub fn problems_by_path(tree: &Node, doc: &Value) -> Vec<(Vec<String>, Problem)> {
    let mut out = Vec::new();
    for e in validator().iter_errors(doc) {
        let segs = segments(e.instance_path().as_str());
        let mut found = Vec::new();
        explain(tree, &e, &mut found);
        out.extend(found.into_iter().map(|f| (segs.clone(), f.problem)));
    }
    out.dedup();
    out
}

/// The segments of a JSON pointer, unescaped.
fn segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The path as people read it: `tests[0].steps[1].tool`; the root is "the suite".
pub fn shown_path(segs: &[String]) -> String {
    if segs.is_empty() {
        return "the suite".into();
    }
    let mut s = String::new();
    for seg in segs {
        if seg.parse::<usize>().is_ok() && !s.is_empty() {
            s.push_str(&format!("[{seg}]"));
        } else {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(seg);
        }
    }
    format!("`{s}`")
}

/// A node of the tree found by a path, and the span of the key it sits under (none for the
/// root and for list items).
pub struct Located<'t> {
    /// The node.
    pub node: &'t Node,
    /// The key the node is the value of.
    pub key: Option<Span>,
}

/// Walks `segs` down the tree; stops at the deepest node that exists.
pub fn locate<'t>(tree: &'t Node, segs: &[String]) -> Located<'t> {
    let mut at = Located {
        node: tree,
        key: None,
    };
    for seg in segs {
        let next = match &at.node.kind {
            Kind::Map(entries) => entries
                .iter()
                .find(|e| &e.key == seg)
                .map(|e| (&e.value, Some(e.key_span))),
            Kind::Seq(items) => seg
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i))
                .map(|n| (n, None)),
            _ => None,
        };
        match next {
            Some((node, key)) => at = Located { node, key },
            None => break,
        }
    }
    at
}

impl Located<'_> {
    /// Where to point for a problem with the value as a whole: a scalar itself; a
    /// collection at its key (a collection's own span is only its first character).
    pub fn value_span(&self) -> Span {
        match (&self.node.kind, self.key) {
            (Kind::Map(_) | Kind::Seq(_), Some(k)) => k,
            _ => self.node.span,
        }
    }

    /// Where to point for something missing inside a mapping: the key that holds it, else the
    /// mapping's first key.
    pub fn holder_span(&self) -> Span {
        self.key.unwrap_or(self.node.span)
    }
}

/// The schema object at a JSON pointer into the schema.
fn schema_at(pointer: &str) -> Option<&'static Value> {
    schema().pointer(pointer)
}

/// The member names a schema object allows: its `properties`, those of the schemas it
/// `$ref`s, and for `oneOf`/`anyOf` those of every branch.
fn allowed_names(object: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let Some(props) = object.get("properties").and_then(Value::as_object) {
        for k in props.keys() {
            if !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    if let Some(r) = object.get("$ref").and_then(Value::as_str)
        && let Some(target) = r.strip_prefix('#').and_then(schema_at)
    {
        allowed_names(target, out, depth + 1);
    }
}

/// The schema object owning the keyword an error points at (`…/additionalProperties` →
/// `…`).
fn owner_of_keyword(error: &ValidationError<'_>) -> Option<&'static Value> {
    let path = error.schema_path().as_str();
    let (parent, _) = path.rsplit_once('/')?;
    schema_at(parent)
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "a list",
        JsonType::Boolean => "a boolean (true or false)",
        JsonType::Integer => "a whole number",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "a mapping",
        JsonType::String => "text",
    }
}

fn expected_types(kind: &jsonschema::error::TypeKind) -> String {
    let names: Vec<&str> = match kind {
        jsonschema::error::TypeKind::Single(t) => vec![type_name(*t)],
        jsonschema::error::TypeKind::Multiple(set) => set.iter().map(type_name).collect(),
    };
    or_list(&names)
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].to_string(),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// A JSON value as written in a message.
fn shown_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Turns one validation error into located problems.
fn explain(tree: &Node, e: &ValidationError<'_>, out: &mut Vec<Found>) {
    let segs = segments(e.instance_path().as_str());
    let at = locate(tree, &segs);
    let context = shown_path(&segs);
    match e.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let mut valid = Vec::new();
            if let Some(owner) = owner_of_keyword(e) {
                allowed_names(owner, &mut valid, 0);
            }
            for field in unexpected {
                let span = at
                    .node
                    .get(field)
                    .map_or(at.holder_span(), |entry| entry.key_span);
                out.push(Found {
                    problem: Problem::UnknownField {
                        context: context.clone(),
                        field: field.clone(),
                        suggestion: closest(field, valid.iter().map(String::as_str)),
                        valid: valid.clone(),
                    },
                    span,
                });
            }
        }
        ValidationErrorKind::Required { property } => out.push(Found {
            problem: Problem::MissingField {
                context,
                fields: vec![shown_value(property)],
            },
            span: at.holder_span(),
        }),
        ValidationErrorKind::Type { kind } => out.push(Found {
            problem: Problem::WrongType {
                context,
                expected: expected_types(kind),
                found: if segs.is_empty() && at.node.kind == Kind::Null {
                    "an empty document"
                } else {
                    at.node.describe()
                },
            },
            span: at.value_span(),
        }),
        ValidationErrorKind::Enum { options } => {
            let valid: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(shown_value).collect())
                .unwrap_or_default();
            out.push(invalid_value(&at, context, valid));
        }
        ValidationErrorKind::Constant { expected_value } => {
            out.push(invalid_value(
                &at,
                context,
                vec![shown_value(expected_value)],
            ));
        }
        ValidationErrorKind::OneOfNotValid { context: branches }
        | ValidationErrorKind::AnyOf { context: branches } => {
            one_of(tree, e, &segs, &at, branches, out);
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            let rule = one_of_rule(e, at.node);
            out.push(Found {
                problem: Problem::SchemaViolation { context, rule },
                span: at.value_span(),
            });
        }
        ValidationErrorKind::MinProperties { limit }
            if segs.len() == 1 && (segs[0] == "servers" || segs[0] == "targets") =>
        {
            let _ = limit;
            out.push(Found {
                problem: Problem::SingleTarget {
                    kind: if segs[0] == "servers" {
                        "named server"
                    } else {
                        "compare target"
                    },
                },
                span: at.value_span(),
            });
        }
        kind => out.push(Found {
            problem: Problem::SchemaViolation {
                context,
                rule: rule_text(kind, at.node),
            },
            span: at.value_span(),
        }),
    }
}

fn invalid_value(at: &Located<'_>, context: String, valid: Vec<String>) -> Found {
    let found = match &at.node.kind {
        Kind::String(s) => s.clone(),
        _ => at.node.to_json().to_string(),
    };
    Found {
        problem: Problem::InvalidValue {
            context,
            found,
            valid,
        },
        span: at.value_span(),
    }
}

/// The wording of the rules that have no problem of their own.
fn rule_text(kind: &ValidationErrorKind, node: &Node) -> String {
    let value = node.to_json();
    match kind {
        ValidationErrorKind::MinLength { limit } if *limit == 1 => "must not be empty".into(),
        ValidationErrorKind::MinLength { limit } => {
            format!("must be at least {limit} characters long")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must be at most {limit} characters long")
        }
        ValidationErrorKind::MinItems { limit } if *limit == 1 => {
            "must list at least one item".into()
        }
        ValidationErrorKind::MinItems { limit } => format!("must list at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("must list at most {limit} items"),
        ValidationErrorKind::MinProperties { limit } if *limit == 1 => {
            "must have at least one member".into()
        }
        ValidationErrorKind::MinProperties { limit } => {
            format!("must have at least {limit} members")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must have at most {limit} members")
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("must be at least {limit} (it is {value})")
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("must be at most {limit} (it is {value})")
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit} (it is {value})")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {limit} (it is {value})")
        }
        ValidationErrorKind::Pattern { pattern } if pattern == "^\\$($|\\.|\\[)" => format!(
            "must be a result path: `$`, or `$` followed by `.` or `[` (it is `{}`)",
            shown_value(&value)
        ),
        ValidationErrorKind::Pattern { pattern } if pattern == "^\\$" => format!(
            "must be a path starting with `$` (it is `{}`)",
            shown_value(&value)
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the pattern `{pattern}`")
        }
        ValidationErrorKind::UniqueItems => "must not list the same item twice".into(),
        ValidationErrorKind::PropertyNames { error } => match error.kind() {
            ValidationErrorKind::MinLength { .. } => "must not have an empty name".into(),
            _ => "has a member name the suite model does not allow".into(),
        },
        ValidationErrorKind::FalseSchema => "is not allowed here".into(),
        ValidationErrorKind::MultipleOf { .. } => "is not a multiple of the required step".into(),
        other => format!("breaks the suite schema ({other:?})")
            .chars()
            .take(200)
            .collect(),
    }
}

/// The wording of a `oneOf` that several branches satisfy, or none.
fn one_of_rule(e: &ValidationError<'_>, node: &Node) -> String {
    let branches = owner_of_keyword(e)
        .and_then(|o| o.get("oneOf"))
        .and_then(Value::as_array);
    let kinds = required_only_branches(branches);
    if !kinds.is_empty() {
        let present: Vec<&str> = kinds
            .iter()
            .filter(|k| node.get(k).is_some())
            .map(String::as_str)
            .collect();
        let all: Vec<&str> = kinds.iter().map(String::as_str).collect();
        return format!(
            "must have exactly one of {}, but it has {}",
            backticked_or(&all),
            backticked_and(&present)
        );
    }
    "matches more than one of the forms it may take; write it in exactly one form".into()
}

/// When every branch of a `oneOf` only requires one member (a step's kinds), those members.
fn required_only_branches(branches: Option<&Vec<Value>>) -> Vec<String> {
    let Some(branches) = branches else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in branches {
        let Some(obj) = b.as_object() else {
            return Vec::new();
        };
        let Some(req) = obj.get("required").and_then(Value::as_array) else {
            return Vec::new();
        };
        if obj.len() != 1 || req.len() != 1 {
            return Vec::new();
        }
        out.extend(req.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

fn backticked_or(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    let r: Vec<&str> = q.iter().map(String::as_str).collect();
    or_list(&r)
}

fn backticked_and(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match q.len() {
        0 => "none".into(),
        1 => q[0].clone(),
        n => format!("{} and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Explains a `oneOf`/`anyOf` that no branch satisfies by the errors of the branch the user
/// most likely meant.
fn one_of(
    tree: &Node,
    e: &ValidationError<'_>,
    segs: &[String],
    at: &Located<'_>,
    branches: &[Vec<ValidationError<'static>>],
    out: &mut Vec<Found>,
) {
    let context = shown_path(segs);
    let depth = segs.len();
    // A step with no kind: every branch just misses its one required member.
    let schema_branches = owner_of_keyword(e)
        .and_then(|o| o.get("oneOf").or_else(|| o.get("anyOf")))
        .and_then(Value::as_array);
    let kinds = required_only_branches(schema_branches);
    if !kinds.is_empty() {
        out.push(Found {
            problem: Problem::MissingField {
                context,
                fields: kinds,
            },
            span: at.holder_span(),
        });
        return;
    }
    let path_of = |err: &ValidationError<'_>| segments(err.instance_path().as_str());
    // A branch is ruled out when the value has the wrong type for it, or when a direct member
    // that tells the forms apart (`transport: stdio`) names another form.
    let ruled_out = |errs: &[ValidationError<'static>]| {
        errs.iter().any(|err| {
            let p = path_of(err);
            (p.len() == depth && matches!(err.kind(), ValidationErrorKind::Type { .. }))
                || (p.len() == depth + 1
                    && matches!(
                        err.kind(),
                        ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
                    ))
        })
    };
    let open: Vec<&Vec<ValidationError<'static>>> =
        branches.iter().filter(|b| !ruled_out(b)).collect();
    if open.is_empty() {
        // Every form is ruled out: by type, or by the discriminating member.
        let mut types = Vec::new();
        let mut values = Vec::new();
        let mut member: Option<Vec<String>> = None;
        for b in branches {
            for err in b {
                let p = path_of(err);
                match err.kind() {
                    ValidationErrorKind::Type { kind } if p.len() == depth => {
                        let t = expected_types(kind);
                        if !types.contains(&t) {
                            types.push(t);
                        }
                    }
                    ValidationErrorKind::Constant { expected_value } if p.len() == depth + 1 => {
                        member = Some(p.clone());
                        let v = shown_value(expected_value);
                        if !values.contains(&v) {
                            values.push(v);
                        }
                    }
                    ValidationErrorKind::Enum { options } if p.len() == depth + 1 => {
                        member = Some(p.clone());
                        for o in options.as_array().into_iter().flatten() {
                            let v = shown_value(o);
                            if !values.contains(&v) {
                                values.push(v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(member) = member.filter(|_| !values.is_empty()) {
            let m = locate(tree, &member);
            out.push(invalid_value(&m, shown_path(&member), values));
            return;
        }
        if !types.is_empty() {
            let t: Vec<&str> = types.iter().map(String::as_str).collect();
            out.push(Found {
                problem: Problem::WrongType {
                    context,
                    expected: or_list(&t),
                    found: at.node.describe(),
                },
                span: at.value_span(),
            });
            return;
        }
    }
    let pool: Vec<&Vec<ValidationError<'static>>> = if open.is_empty() {
        branches.iter().collect()
    } else {
        open
    };
    let best = pool.into_iter().min_by_key(|b| b.len());
    match best {
        Some(errs) if !errs.is_empty() => {
            for err in errs {
                explain(tree, err, out);
            }
        }
        _ => out.push(Found {
            problem: Problem::SchemaViolation {
                context,
                rule: "does not match any form it may take".into(),
            },
            span: at.value_span(),
        }),
    }
}
