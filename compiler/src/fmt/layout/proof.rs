//! The proof of a layout: the tree of the formatted text must be the tree of the source,
//! positions and indentation aside, with the same comments in the same places.

use crate::syntax::{Document, Node, Stmt};
use serde_json::Value;
use std::collections::HashSet;

/// What a node means, without where it stands: one entry per node, depth first.
#[derive(Debug, PartialEq)]
pub(super) struct Shape {
    depth: usize,
    children: usize,
    /// The statement with every span removed.
    stmt: Value,
    /// A comment's text.
    comment: Option<String>,
    yaml: Option<Option<Value>>,
    table: Option<(Vec<String>, Vec<Vec<String>>)>,
}

/// The shapes of every node of a document, depth first.
pub(super) fn shape(doc: &Document, text: &str) -> Vec<Shape> {
    let mut out = Vec::new();
    for n in &doc.nodes {
        walk(n, 0, text, &mut out);
    }
    out
}

fn walk(node: &Node, depth: usize, text: &str, out: &mut Vec<Shape>) {
    let mut stmt = serde_json::to_value(&node.stmt).unwrap_or(Value::Null);
    strip(&mut stmt);
    out.push(Shape {
        depth,
        children: node.children.len(),
        stmt,
        comment: matches!(node.stmt, Stmt::Comment)
            .then(|| text.get(node.span.range()).unwrap_or("").to_string()),
        yaml: node.yaml.as_ref().map(|y| y.value.clone()),
        table: node.table.as_ref().map(|t| {
            (
                t.header.iter().map(|c| c.text.clone()).collect(),
                t.rows
                    .iter()
                    .map(|r| r.iter().map(|c| c.text.clone()).collect())
                    .collect(),
            )
        }),
    });
    for c in &node.children {
        walk(c, depth + 1, text, out);
    }
}

/// Replaces every `{start, end}` span with null.
fn strip(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.len() == 2 && m.get("start").is_some_and(Value::is_u64) {
                *v = Value::Null;
                return;
            }
            m.values_mut().for_each(strip);
        }
        Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

/// How two documents differ.
pub(super) enum Diff {
    Same,
    /// Only these statements (depth-first indexes) read back as something else.
    Statements(HashSet<usize>),
    /// The trees differ in more than statements.
    Structure(String),
}

pub(super) fn differing(want: &[Shape], got: &[Shape]) -> Diff {
    if want.len() != got.len() {
        return Diff::Structure(format!(
            "{} statements and comments became {}",
            want.len(),
            got.len()
        ));
    }
    let mut nodes = HashSet::new();
    for (i, (a, b)) in want.iter().zip(got).enumerate() {
        if a.depth != b.depth || a.children != b.children {
            return Diff::Structure(format!("the block of node {i} changed"));
        }
        if a.comment != b.comment {
            return Diff::Structure(format!("comment {i} changed"));
        }
        if a.yaml != b.yaml || a.table != b.table {
            return Diff::Structure(format!("the block or table of node {i} changed"));
        }
        if a.stmt != b.stmt {
            nodes.insert(i);
        }
    }
    if nodes.is_empty() {
        Diff::Same
    } else {
        Diff::Statements(nodes)
    }
}
