//! The outline of a `.mcpr` file (tests, flows, data sources, and the setup, steps and
//! cleanup sections of each) and the ranges an editor can fold.

use lsp_types::{DocumentSymbol, FoldingRange, FoldingRangeKind, SymbolKind};
use mcpr_compiler::source::{SourceFile, Span};
use mcpr_compiler::syntax::{Node, Stmt};

use crate::convert;
use crate::index::block_span;
use crate::open::Open;

#[allow(deprecated)]
fn symbol(
    file: &SourceFile,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    whole: Span,
    selection: Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    DocumentSymbol {
        name: if name.is_empty() {
            "(unnamed)".into()
        } else {
            name
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: convert::range(file, whole),
        selection_range: convert::range(file, selection),
        children: (!children.is_empty()).then_some(children),
    }
}

/// The outline of the entry: one symbol per block, each section of a block below it.
pub(crate) fn symbols(open: &Open) -> Vec<DocumentSymbol> {
    let file = open.analysis.entry();
    let Some(doc) = open.analysis.document() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for node in &doc.nodes {
        let (name, kind, detail) = match &node.stmt {
            Stmt::TestHeader { name } => (name, SymbolKind::FUNCTION, "test"),
            Stmt::FlowHeader { name } => (name, SymbolKind::METHOD, "flow"),
            Stmt::DataSourceHeader { name } => (name, SymbolKind::STRUCT, "data source"),
            Stmt::ImportFlows { path } => (path, SymbolKind::MODULE, "import"),
            Stmt::Suite { name } => (name, SymbolKind::NAMESPACE, "suite"),
            _ => continue,
        };
        let children = sections(file, node);
        out.push(symbol(
            file,
            name.value.clone(),
            Some(detail.into()),
            kind,
            block_span(node),
            name.span,
            children,
        ));
    }
    out
}

/// `Setup:`, `Steps:` and `Cleanup:` of a block, each up to the next section.
fn sections(file: &SourceFile, block: &Node) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    let kids = &block.children;
    for (i, node) in kids.iter().enumerate() {
        if !matches!(node.stmt, Stmt::Setup | Stmt::Steps | Stmt::Cleanup) {
            continue;
        }
        let end = kids[i..]
            .iter()
            .skip(1)
            .take_while(|n| !matches!(n.stmt, Stmt::Setup | Stmt::Steps | Stmt::Cleanup))
            .fold(node.span, |s, n| s.cover(block_span(n)));
        let name = file.text()[node.span.range()]
            .trim_end_matches(':')
            .to_string();
        out.push(symbol(
            file,
            name,
            None,
            SymbolKind::NAMESPACE,
            end,
            node.span,
            Vec::new(),
        ));
    }
    out
}

/// Blocks, sections, YAML blocks, inline tables and runs of comment lines.
pub(crate) fn folding(open: &Open) -> Vec<FoldingRange> {
    let file = open.analysis.entry();
    let Some(doc) = open.analysis.document() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut fold = |span: Span, kind: Option<FoldingRangeKind>| {
        let start = file.line_index(span.start as usize) as u32;
        let end = file.line_index(span.end as usize) as u32;
        if end > start {
            out.push(FoldingRange {
                start_line: start,
                start_character: None,
                end_line: end,
                end_character: None,
                kind,
                collapsed_text: None,
            });
        }
    };
    for node in &doc.nodes {
        if !node.children.is_empty() {
            fold(block_span(node), Some(FoldingRangeKind::Region));
        }
    }
    for node in doc.walk() {
        if let Some(y) = &node.yaml {
            fold(node.span.cover(y.span), Some(FoldingRangeKind::Region));
        }
        if let Some(t) = &node.table {
            fold(node.span.cover(t.span), Some(FoldingRangeKind::Region));
        }
    }
    for block in &doc.nodes {
        for s in sections(file, block) {
            let start = s.range.start.line;
            let end = s.range.end.line;
            if end > start {
                out.push(FoldingRange {
                    start_line: start,
                    start_character: None,
                    end_line: end,
                    end_character: None,
                    kind: Some(FoldingRangeKind::Region),
                    collapsed_text: None,
                });
            }
        }
    }
    // Runs of two or more comment lines.
    let mut run: Option<(u32, u32)> = None;
    for line in 0..file.line_count() {
        let is_comment = file.line_text(line).trim_start().starts_with('#');
        let l = line as u32;
        run = match (run, is_comment) {
            (Some((s, _)), true) => Some((s, l)),
            (None, true) => Some((l, l)),
            (Some((s, e)), false) => {
                if e > s {
                    out.push(comment_fold(s, e));
                }
                None
            }
            (None, false) => None,
        };
    }
    if let Some((s, e)) = run
        && e > s
    {
        out.push(comment_fold(s, e));
    }
    out
}

fn comment_fold(start: u32, end: u32) -> FoldingRange {
    FoldingRange {
        start_line: start,
        start_character: None,
        end_line: end,
        end_character: None,
        kind: Some(FoldingRangeKind::Comment),
        collapsed_text: None,
    }
}
