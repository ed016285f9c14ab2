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
    let line = Line::at(open, offset);
    if let Some(items) = reference_names(open, &line) {
        return Some(items);
    }
    if let Some(items) = quoted_names(open, &line) {
        return Some(items);
    }
    if strip(&line.lower, "depends on:").is_some() {
        return Some(dependencies(open, &line));
    }
    if let Some((node, true)) = scope::node_at(open, offset) {
        return Some(with_keys(
            open,
            &node.stmt,
            line.text,
            offset,
            line.start + line.indent,
        ));
    }
    // Only keyword letters so far: the forms that may stand here.
    if !line
        .before
        .trim_start()
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ')
    {
        return Some(Vec::new());
    }
    Some(forms_here(open, &line))
}

/// The line being completed, up to the cursor.
struct Line<'a> {
    file: &'a mcpr_compiler::source::SourceFile,
    /// The whole text of the entry.
    text: &'a str,
    offset: usize,
    /// Where the line starts.
    start: usize,
    /// The line up to the cursor.
    before: &'a str,
    /// The same without its indentation, in lower case.
    lower: String,
    /// The width of its indentation.
    indent: usize,
}

impl<'a> Line<'a> {
    fn at(open: &'a Open, offset: usize) -> Self {
        let file = open.analysis.entry();
        let text = file.text();
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[start..offset];
        let trimmed = before.trim_start();
        Line {
            file,
            text,
            offset,
            start,
            before,
            lower: trimmed.to_lowercase(),
            indent: before.len() - trimmed.len(),
        }
    }

    /// An item that replaces the text from `start` to the cursor with `new_text`.
    fn item(
        &self,
        label: String,
        kind: CompletionItemKind,
        start: usize,
        new_text: String,
        detail: Option<String>,
    ) -> CompletionItem {
        CompletionItem {
            label,
            kind: Some(kind),
            detail,
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: convert::range(self.file, Span::new(start, self.offset)),
                new_text,
            })),
            ..CompletionItem::default()
        }
    }
}

/// `${…` not yet closed on the line: the names in scope.
fn reference_names(open: &Open, line: &Line<'_>) -> Option<Vec<CompletionItem>> {
    let open_at = line.before.rfind("${")?;
    if line.before[open_at..].contains('}') {
        return None;
    }
    let start = line.start + open_at + 2;
    let typed = &line.text[start..line.offset];
    let items = scope::names(open, line.offset)
        .into_iter()
        .filter(|n| n.reference.starts_with(typed.trim()))
        .map(|n| {
            let detail = match &n.value {
                Some(v) => format!("{} — {v}", n.kind),
                None => n.kind.to_string(),
            };
            line.item(
                n.reference.clone(),
                CompletionItemKind::VARIABLE,
                start,
                n.reference,
                Some(detail),
            )
        })
        .collect();
    Some(items)
}

/// After `Use flow`, `For each row from` and `Call tool`, before the name is closed: the
/// flows, the data sources and the server's tools, quoted.
fn quoted_names(open: &Open, line: &Line<'_>) -> Option<Vec<CompletionItem>> {
    let open_name = |phrase: &str| strip(&line.lower, phrase).is_some_and(|r| !r.contains("\" "));
    let (phrase, names, kind): (&str, Vec<(String, Option<String>)>, _) = if open_name("use flow ")
    {
        let flows = open
            .index
            .flows
            .iter()
            .map(|f| (f.name.clone(), Some(flow_detail(f))))
            .collect();
        ("use flow ", flows, CompletionItemKind::FUNCTION)
    } else if open_name("for each row from ") {
        let sources = open
            .index
            .sources
            .iter()
            .map(|s| (s.name.clone(), None))
            .collect();
        ("for each row from ", sources, CompletionItemKind::STRUCT)
    } else if open_name("call tool ") {
        let found = tools::tools(open)
            .into_iter()
            .map(|t| (t.name, Some(t.description)))
            .collect();
        ("call tool ", found, CompletionItemKind::FUNCTION)
    } else {
        return None;
    };
    let after = line.start + line.indent + phrase.len();
    let items = names
        .into_iter()
        .map(|(n, detail)| {
            line.item(
                n.clone(),
                kind,
                after,
                format!("\"{}\"", n.replace('"', "\\\"")),
                detail,
            )
        })
        .collect();
    Some(items)
}

/// After `Depends on:` or a comma: the ids of the other tests.
fn dependencies(open: &Open, line: &Line<'_>) -> Vec<CompletionItem> {
    let before = line.before;
    let cut = before.rfind([',', ':']).map_or(0, |i| i + 1);
    let start = line.start + cut + (before[cut..].len() - before[cut..].trim_start().len());
    let here = open.index.test_around(line.offset).map(|t| t.id.clone());
    open.index
        .tests
        .iter()
        .filter(|t| Some(&t.id) != here.as_ref())
        .map(|t| {
            line.item(
                t.id.clone(),
                CompletionItemKind::REFERENCE,
                start,
                t.id.clone(),
                Some(format!("test \"{}\"", t.name)),
            )
        })
        .collect()
}

/// The statement forms that may stand at the cursor and start with what is typed, as
/// snippets.
fn forms_here(open: &Open, line: &Line<'_>) -> Vec<CompletionItem> {
    let place = place_at(open, line.offset, line.indent);
    let start = line.start + line.indent;
    forms::offers()
        .iter()
        .filter(|o| o.places.contains(&place))
        .filter(|o| o.usage.to_lowercase().starts_with(&line.lower))
        .map(|o| {
            let mut it = line.item(
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
        .collect()
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
