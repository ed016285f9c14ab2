//! Hover: the explanation of the diagnostic (or the code) under the cursor, what a `${…}`
//! refers to, the flow input or tool argument a `with:` key names, and the documentation
//! of the statement on the line.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use mcpr_compiler::source::Span;
use mcpr_compiler::syntax::Stmt;
use mcpr_runtime::explain::lookup;

use crate::index::covers;
use crate::open::Open;
use crate::{convert, forms, scope, tools};

/// The hover at a byte offset of the entry.
pub(crate) fn hover(open: &Open, offset: usize) -> Option<Hover> {
    let file = open.analysis.entry();
    let text = file.text();
    let mut parts: Vec<String> = Vec::new();
    let mut range: Option<Span> = None;
    for d in open
        .analysis
        .diagnostics
        .iter()
        .filter(|d| d.file == 0 && covers(d.span, offset))
    {
        parts.push(code_doc(d.code.as_str()));
        range.get_or_insert(d.span);
    }
    if let Some((word, span)) = word_at(text, offset)
        && looks_like_code(word)
        && let Ok(code) = lookup(word)
        && !parts
            .iter()
            .any(|p| p.starts_with(&format!("**{}**", code.as_str())))
    {
        parts.push(code_doc(code.as_str()));
        range = Some(span);
    }
    if let Some((inner, span)) = scope::reference_at(text, offset) {
        parts.push(reference(open, inner, offset));
        range = Some(span);
    } else if let Some((node, in_block)) = scope::node_at(open, offset) {
        if in_block {
            if let Some((key, span)) = yaml_key_at(text, offset) {
                parts.extend(with_key(open, &node.stmt, key));
                range = Some(span);
            }
        } else if let Some(doc) = forms::statement_doc(&text[node.span.range()]) {
            parts.push(doc);
            range.get_or_insert(node.span);
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: range.map(|s| convert::range(file, s)),
    })
}

/// A code's page, as `mcpr explain` prints it.
fn code_doc(code: &str) -> String {
    match lookup(code) {
        Ok(c) => format!("**{}** {}\n\n{}", c.as_str(), c.title(), c.doc()),
        Err(_) => format!("**{code}**"),
    }
}

fn looks_like_code(word: &str) -> bool {
    let w = word.to_ascii_uppercase();
    (w.starts_with("MCPLANG") || w.starts_with("MCP") || w.starts_with("QA-"))
        && w.chars().last().is_some_and(|c| c.is_ascii_digit())
}

/// The word (letters, digits, `-`, `_`) around an offset.
fn word_at(text: &str, offset: usize) -> Option<(&str, Span)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (end > start).then(|| (&text[start..end], Span::new(start, end)))
}

/// What a `${…}` refers to.
fn reference(open: &Open, inner: &str, offset: usize) -> String {
    let names = scope::names(open, offset);
    let trimmed = inner.trim();
    let head_of = |r: &str| r.split(['.', '[', '(']).next().unwrap_or(r).to_string();
    let found = names
        .iter()
        .filter(|n| trimmed == n.reference || trimmed.starts_with(&format!("{}.", n.reference)))
        .max_by_key(|n| n.reference.len())
        .or_else(|| {
            names
                .iter()
                .find(|n| n.reference.ends_with("()") && head_of(trimmed) == head_of(&n.reference))
        });
    match found {
        Some(n) => {
            let mut s = format!("`${{{trimmed}}}`: {}", n.kind);
            if let Some(v) = &n.value {
                s.push_str(&format!(" — {v}"));
            }
            if let Some(at) = n.declared {
                let line = open.analysis.entry().line_index(at.start as usize) + 1;
                s.push_str(&format!(" (line {line})"));
            }
            s
        }
        None => match head_of(trimmed).as_str() {
            "env" => format!("`${{{trimmed}}}`: an environment variable of the run"),
            "state" => format!("`${{{trimmed}}}`: a value kept in the state file between runs"),
            "row" => format!("`${{{trimmed}}}`: a column of the current data row"),
            "deps" => format!("`${{{trimmed}}}`: an export of a test this one depends on"),
            _ => format!("`${{{trimmed}}}`: not declared in this file"),
        },
    }
}

/// The YAML key on the offset's line (`  name: value` with the cursor on `name`).
fn yaml_key_at(text: &str, offset: usize) -> Option<(&str, Span)> {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[start..end];
    let body = line.trim_start().trim_start_matches("- ");
    let key_start = start + (line.len() - body.len());
    let colon = body.find(':')?;
    let key = body[..colon].trim().trim_matches(['"', '\'']);
    let span = Span::new(key_start, key_start + colon);
    (covers(span, offset) && !key.is_empty()).then_some((key, span))
}

/// A `with:` key of a `Use flow` (the flow's input) or a `Call tool` (the tool's argument).
fn with_key(open: &Open, stmt: &Stmt, key: &str) -> Option<String> {
    match stmt {
        Stmt::UseFlow { name, .. } => {
            let flow = open.index.flows.iter().find(|f| f.name == name.value)?;
            let input = flow.inputs.iter().find(|i| i.name.value == key);
            Some(match input {
                Some(i) => match &i.default {
                    Some(d) => format!(
                        "`{key}`: optional input of flow \"{}\" (default `{}`)",
                        flow.name, d.value
                    ),
                    None => format!("`{key}`: required input of flow \"{}\"", flow.name),
                },
                None => format!("`{key}` is not an input of flow \"{}\"", flow.name),
            })
        }
        Stmt::CallTool { name, .. } | Stmt::CallToolWithProgress { name, .. } => {
            let tool = tools::tools(open)
                .into_iter()
                .find(|t| t.name == name.value)?;
            let arg = tool.arguments.iter().find(|a| a.name == key)?;
            Some(format!(
                "`{key}`: {} argument of tool \"{}\" ({}){}",
                if arg.required { "required" } else { "optional" },
                tool.name,
                arg.kind,
                if arg.description.is_empty() {
                    String::new()
                } else {
                    format!("\n\n{}", arg.description)
                }
            ))
        }
        _ => None,
    }
}
