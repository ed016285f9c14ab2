//! Completion: the statement forms that may stand at the cursor (as snippets), flow names
//! after `Use flow`, test ids after `Depends on`, data sources after `For each row from`,
//! tool names after `Call tool` and the keys of `with:` blocks (a flow's inputs, a tool's
//! arguments), and the `${…}` names in scope.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, InsertTextFormat,
    MarkupContent, MarkupKind, TextEdit,
};
use mcpr_compiler::source::Span;
use mcpr_compiler::syntax::Stmt;

use crate::forms::{self, Place};
use crate::open::Open;
use crate::{convert, scope, tools};

/// The completions at a byte offset of the entry.
pub(crate) fn complete(open: &Open, offset: usize) -> Option<Vec<CompletionItem>> {
    let file = open.analysis.entry();
    let text = file.text();
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let item = |label: String, kind, start: usize, new_text: String, detail: Option<String>| {
        CompletionItem {
            label,
            kind: Some(kind),
            detail,
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: convert::range(file, Span::new(start, offset)),
                new_text,
            })),
            ..CompletionItem::default()
        }
    };
    // `${…` not yet closed on the line: the names in scope.
    if let Some(open_at) = before.rfind("${")
        && !before[open_at..].contains('}')
    {
        let start = line_start + open_at + 2;
        let typed = &text[start..offset];
        let items = scope::names(open, offset)
            .into_iter()
            .filter(|n| n.reference.starts_with(typed.trim()))
            .map(|n| {
                let detail = match &n.value {
                    Some(v) => format!("{} — {v}", n.kind),
                    None => n.kind.to_string(),
                };
                item(
                    n.reference.clone(),
                    CompletionItemKind::VARIABLE,
                    start,
                    n.reference,
                    Some(detail),
                )
            })
            .collect();
        return Some(items);
    }
    let trimmed = before.trim_start();
    let lower = trimmed.to_lowercase();
    let indent = before.len() - trimmed.len();
    let names = |phrase: &str, names: Vec<(String, Option<String>)>, kind| {
        let after = line_start + indent + phrase.len();
        let items = names
            .into_iter()
            .map(|(n, detail)| {
                item(
                    n.clone(),
                    kind,
                    after,
                    format!("\"{}\"", n.replace('"', "\\\"")),
                    detail,
                )
            })
            .collect::<Vec<_>>();
        Some(items)
    };
    if let Some(rest) = strip(&lower, "use flow ")
        && !rest.contains("\" ")
    {
        let flows = open
            .index
            .flows
            .iter()
            .map(|f| (f.name.clone(), Some(flow_detail(f))))
            .collect();
        return names("use flow ", flows, CompletionItemKind::FUNCTION);
    }
    if let Some(rest) = strip(&lower, "for each row from ")
        && !rest.contains("\" ")
    {
        let sources = open
            .index
            .sources
            .iter()
            .map(|s| (s.name.clone(), None))
            .collect();
        return names("for each row from ", sources, CompletionItemKind::STRUCT);
    }
    if let Some(rest) = strip(&lower, "call tool ")
        && !rest.contains("\" ")
    {
        let found = tools::tools(open)
            .into_iter()
            .map(|t| (t.name, Some(t.description)))
            .collect();
        return names("call tool ", found, CompletionItemKind::FUNCTION);
    }
    if strip(&lower, "depends on:").is_some() {
        let cut = before.rfind([',', ':']).map_or(0, |i| i + 1);
        let start = line_start + cut + (before[cut..].len() - before[cut..].trim_start().len());
        let here = open.index.test_around(offset).map(|t| t.id.clone());
        let items = open
            .index
            .tests
            .iter()
            .filter(|t| Some(&t.id) != here.as_ref())
            .map(|t| {
                item(
                    t.id.clone(),
                    CompletionItemKind::REFERENCE,
                    start,
                    t.id.clone(),
                    Some(format!("test \"{}\"", t.name)),
                )
            })
            .collect();
        return Some(items);
    }
    if let Some((node, true)) = scope::node_at(open, offset) {
        return Some(with_keys(
            open,
            &node.stmt,
            text,
            offset,
            line_start + indent,
        ));
    }
    // Only keyword letters so far: the forms that may stand here.
    if !trimmed.chars().all(|c| c.is_alphabetic() || c == ' ') {
        return Some(Vec::new());
    }
    let place = place_at(open, offset, indent);
    let start = line_start + indent;
    let items = forms::offers()
        .iter()
        .filter(|o| o.places.contains(&place))
        .filter(|o| o.usage.to_lowercase().starts_with(&lower))
        .map(|o| {
            let mut it = item(
                o.usage.to_string(),
                CompletionItemKind::KEYWORD,
                start,
                forms::snippet(o.usage),
                Some(o.row.usage.to_string()),
            );
            it.insert_text_format = Some(InsertTextFormat::SNIPPET);
            it.documentation = o.doc.clone().map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            });
            it
        })
        .collect();
    Some(items)
}

fn strip<'a>(lower: &'a str, phrase: &str) -> Option<&'a str> {
    lower.strip_prefix(phrase)
}

fn flow_detail(f: &crate::index::FlowDef) -> String {
    let inputs: Vec<String> = f
        .inputs
        .iter()
        .map(|i| match &i.default {
            Some(d) => format!("{}={}", i.name.value, d.value),
            None => i.name.value.clone(),
        })
        .collect();
    format!("flow ({})", inputs.join(", "))
}

/// Where a line at `offset` with `indent` spaces stands: at column 0 the document level,
/// indented the block above it.
fn place_at(open: &Open, offset: usize, indent: usize) -> Place {
    if indent == 0 {
        return Place::Document;
    }
    let block = open.analysis.document().and_then(|d| {
        d.nodes
            .iter()
            .rev()
            .find(|n| (n.span.start as usize) <= offset && !n.span.is_empty())
    });
    match block.map(|n| &n.stmt) {
        Some(Stmt::FlowHeader { .. }) => Place::Flow,
        Some(Stmt::DataSourceHeader { .. }) => Place::DataSource,
        _ => Place::Test,
    }
}

/// The keys a `with:` block may still take: a flow's inputs or a tool's arguments.
fn with_keys(
    open: &Open,
    stmt: &Stmt,
    text: &str,
    offset: usize,
    start: usize,
) -> Vec<CompletionItem> {
    let file = open.analysis.entry();
    let keys: Vec<(String, String)> = match stmt {
        Stmt::UseFlow { name, .. } => open
            .index
            .flows
            .iter()
            .find(|f| f.name == name.value)
            .map(|f| {
                f.inputs
                    .iter()
                    .map(|i| {
                        let d = match &i.default {
                            Some(d) => format!("optional input (default {})", d.value),
                            None => "required input".into(),
                        };
                        (i.name.value.clone(), d)
                    })
                    .collect()
            })
            .unwrap_or_default(),
        Stmt::CallTool { name, .. } | Stmt::CallToolWithProgress { name, .. } => tools::tools(open)
            .into_iter()
            .find(|t| t.name == name.value)
            .map(|t| {
                t.arguments
                    .into_iter()
                    .map(|a| {
                        let req = if a.required { "required" } else { "optional" };
                        (a.name, format!("{req} {} — {}", a.kind, a.description))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let typed = &text[start..offset];
    keys.into_iter()
        .filter(|(k, _)| k.starts_with(typed))
        .map(|(k, detail)| CompletionItem {
            label: k.clone(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(detail),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: convert::range(file, Span::new(start, offset)),
                new_text: format!("{k}: "),
            })),
            ..CompletionItem::default()
        })
        .collect()
}
