//! The `${…}` names in scope at a place of the entry: a flow's inputs, a test's variables
//! (`Variables:`, `Save … as`, `Set … using`), the columns of its rows (`row.`), the exports
//! of the tests it depends on (`deps.ID.`), and the built-in functions.

use mcpr_compiler::lower::BUILT_IN_FUNCTIONS;
use mcpr_compiler::source::Span;
use mcpr_compiler::syntax::{Node, Stmt};
use serde_json::Value;

use crate::index::{block_span, covers};
use crate::open::Open;

/// One name a `${…}` can use here.
#[derive(Debug, Clone)]
pub struct Name {
    /// The reference as written inside `${…}` (`total`, `row.email`, `deps.login.token`).
    pub reference: String,
    /// What it is, in a few words.
    pub kind: &'static str,
    /// What it holds, when the file says (a default, a variable's value, an export's path).
    pub value: Option<String>,
    /// Where it is declared in the entry.
    pub declared: Option<Span>,
}

/// The block (test or flow) of the entry around an offset.
fn block_at(open: &Open, offset: usize) -> Option<&Node> {
    let doc = open.analysis.document()?;
    doc.nodes
        .iter()
        .find(|n| !n.children.is_empty() && covers(block_span(n), offset))
}

/// Every name in scope at a byte offset of the entry.
pub fn names(open: &Open, offset: usize) -> Vec<Name> {
    let mut out = Vec::new();
    let text = open.analysis.entry().text();
    if let Some(block) = block_at(open, offset) {
        match &block.stmt {
            Stmt::FlowHeader { .. } => flow_inputs(block, text, &mut out),
            Stmt::TestHeader { .. } => test_names(open, block, text, offset, &mut out),
            _ => {}
        }
    }
    for f in BUILT_IN_FUNCTIONS {
        out.push(Name {
            reference: format!("{f}()"),
            kind: "built-in function",
            value: None,
            declared: None,
        });
    }
    out
}

fn flow_inputs(block: &Node, _text: &str, out: &mut Vec<Name>) {
    for c in &block.children {
        if let Stmt::Inputs { inputs } = &c.stmt {
            for i in inputs {
                out.push(Name {
                    reference: i.name.value.clone(),
                    kind: if i.default.is_some() {
                        "flow input (optional)"
                    } else {
                        "flow input (required)"
                    },
                    value: i.default.as_ref().map(|d| format!("default {}", d.value)),
                    declared: Some(i.name.span),
                });
            }
        }
    }
}

fn test_names(open: &Open, block: &Node, text: &str, offset: usize, out: &mut Vec<Name>) {
    let mut depends: Vec<String> = Vec::new();
    for c in block.walk() {
        match &c.stmt {
            Stmt::Variables => {
                if let Some(Value::Object(m)) = c.yaml.as_ref().and_then(|y| y.value.as_ref()) {
                    for (k, v) in m {
                        let key_at = c.yaml.as_ref().and_then(|y| {
                            let block = &text[y.span.range()];
                            block.find(&format!("{k}:")).map(|i| {
                                Span::new(
                                    y.span.start as usize + i,
                                    y.span.start as usize + i + k.len(),
                                )
                            })
                        });
                        out.push(Name {
                            reference: k.clone(),
                            kind: "variable",
                            value: Some(show(v)),
                            declared: key_at,
                        });
                    }
                }
            }
            Stmt::Save { path, variable } if (c.span.start as usize) < offset => out.push(Name {
                reference: variable.value.clone(),
                kind: "saved value",
                value: Some(format!("\"{}\" of the step's result", path.value)),
                declared: Some(variable.span),
            }),
            Stmt::SetUsing {
                variable, function, ..
            } if (c.span.start as usize) < offset => out.push(Name {
                reference: variable.value.clone(),
                kind: "variable set by a function",
                value: Some(format!("the result of `{}`", function.value)),
                declared: Some(variable.span),
            }),
            Stmt::ForEachRow => {
                if let Some(t) = &c.table {
                    for (i, h) in t.header.iter().enumerate() {
                        let values: Vec<&str> = t
                            .rows
                            .iter()
                            .filter_map(|r| r.get(i).map(|cell| cell.text.as_str()))
                            .filter(|v| !v.chars().all(|ch| ch == '-' || ch == ':'))
                            .collect();
                        out.push(Name {
                            reference: format!("row.{}", h.text),
                            kind: "column of the inline table",
                            value: Some(format!("one of: {}", values.join(", "))),
                            declared: Some(h.span),
                        });
                    }
                }
            }
            Stmt::ForEachRowFrom { source } => {
                if let Some(s) = open.index.sources.iter().find(|s| s.name == source.value) {
                    for col in &s.columns {
                        out.push(Name {
                            reference: format!("row.{col}"),
                            kind: "column of the data source",
                            value: Some(format!("from data source \"{}\"", s.name)),
                            declared: None,
                        });
                    }
                }
            }
            Stmt::DependsOn { ids } => depends.extend(ids.iter().map(|i| i.value.clone())),
            _ => {}
        }
    }
    for t in &open.index.tests {
        if !depends.contains(&t.id) {
            continue;
        }
        for (name, at) in &t.exports {
            let line = open.analysis.map.get(at.file);
            let l = line.line_index(at.span.start as usize);
            out.push(Name {
                reference: format!("deps.{}.{name}", t.id),
                kind: "export of a test this one depends on",
                value: Some(format!(
                    "`{}` (line {} of test \"{}\")",
                    line.line_text(l).trim(),
                    l + 1,
                    t.name
                )),
                declared: None,
            });
        }
    }
}

/// A YAML value shown in one line.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// The statement of the entry at an offset: the node on the offset's line, or the node whose
/// YAML block or inline table holds the offset (then `true`).
pub fn node_at(open: &Open, offset: usize) -> Option<(&Node, bool)> {
    let doc = open.analysis.document()?;
    let file = open.analysis.entry();
    let line = file.line_index(offset);
    for n in doc.walk() {
        if file.line_index(n.span.start as usize) == line && !n.span.is_empty() {
            return Some((n, false));
        }
        let in_block = n.yaml.as_ref().is_some_and(|y| covers(y.span, offset))
            || n.table.as_ref().is_some_and(|t| covers(t.span, offset));
        if in_block {
            return Some((n, true));
        }
    }
    None
}

/// The `${…}` reference around an offset of a text: its inside and the span of the inside.
pub fn reference_at(text: &str, offset: usize) -> Option<(&str, Span)> {
    // A reference never spans lines: only the offset's line is searched.
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    mcpr_compiler::values::refs(&text[start..end]).find_map(|(at, inner)| {
        let at = start + at;
        let span = Span::new(at + 2, at + 2 + inner.len());
        covers(span, offset).then_some((inner, span))
    })
}
