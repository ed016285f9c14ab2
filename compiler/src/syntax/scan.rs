//! The first pass over the lines of a file: indentation, tabs, comments, `${…}` references.

use super::{Line, LineKind};
use crate::diagnostics::{Diagnostic, Edit, Fix, Problem, Sink};
use crate::source::{SourceFile, Span};
use crate::values::find_open;

/// First pass: indentation, tabs, comments, references, version header.
pub(super) fn scan_lines(
    file: &SourceFile,
    file_id: usize,
    range: std::ops::Range<usize>,
    diags: &mut impl Sink,
) -> Vec<Line> {
    let lines = lines(file, range);
    for l in &lines {
        problems(file, file_id, l, diags);
    }
    lines
}

/// The facts of lines `range`, without their problems: for lines [`scan_lines`] has
/// reported already.
pub(super) fn lines(file: &SourceFile, range: std::ops::Range<usize>) -> Vec<Line> {
    let src = file.text();
    let mut out = Vec::with_capacity(range.len());
    for i in range {
        let span = file.line_span(i);
        let (text, start) = without_bom(src, span);
        // Tabs are reported (MCPLANG101) but still count as indentation (`Line::indent`),
        // so a tab-indented line stays in its block instead of cascading errors.
        let lead = text
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        let body = &text[lead..];
        // Most lines start and end with an ASCII character that is not a space: no
        // Unicode-aware trimming needed then.
        let plain = |b: Option<&u8>| b.is_some_and(|&b| b < 0x80 && !(b as char).is_whitespace());
        let from = if plain(body.as_bytes().first()) {
            body
        } else {
            body.trim_start_matches(char::is_whitespace)
        };
        let content = if plain(from.as_bytes().last()) {
            from
        } else {
            from.trim_end_matches(char::is_whitespace)
        };
        let tstart = start + lead + (body.len() - from.len());
        let trimmed = Span::new(tstart, tstart + content.len());
        out.push(Line { span, trimmed });
    }
    out
}

/// The text of the line at `span` and where it starts, after the byte order mark that may
/// open the file (on its first line, the one that starts at byte 0).
pub(super) fn without_bom(src: &str, span: Span) -> (&str, usize) {
    let text = &src[span.range()];
    match text.strip_prefix('\u{feff}') {
        Some(rest) if span.start == 0 => (rest, 3),
        _ => (text, span.start as usize),
    }
}

/// The problems of one line: tabs, odd indentation, broken references.
fn problems(file: &SourceFile, file_id: usize, l: &Line, diags: &mut impl Sink) {
    let src = file.text();
    let (text, start) = without_bom(src, l.span);
    let lead = l.lead(src) as usize;
    // Tabs: one diagnostic per line, at the first tab.
    let tab = crate::bytes::find_byte(text.as_bytes(), b'\t');
    if let Some(t) = tab {
        let mut d = Diagnostic::new(Problem::Tab, file_id, Span::new(start + t, start + t + 1));
        // A tab in the indentation counts as two spaces: writing them changes nothing.
        let edits: Vec<Edit> = text[..lead]
            .match_indices('\t')
            .map(|(i, _)| Edit {
                span: Span::new(start + i, start + i + 1),
                replacement: "  ".into(),
            })
            .collect();
        if !edits.is_empty() && t < lead {
            let mut fix = Fix::replace(Span::at(0), "", "indent with two spaces per tab");
            fix.edits = edits;
            d = d.with_fix(fix);
        }
        diags.push(d);
    }
    let tab_in_indent = tab.is_some_and(|t| text[..t].bytes().all(|b| b == b' '));
    let kind = l.kind(src);
    let indent = l.indent(src);
    if kind != LineKind::Blank && indent % 2 == 1 && !tab_in_indent {
        diags.push(Diagnostic::new(
            Problem::OddIndentation { spaces: indent },
            file_id,
            Span::new(start, start + 1),
        ));
    }
    if kind == LineKind::Text {
        check_references(
            &src[l.trimmed.range()],
            l.trimmed.start as usize,
            file_id,
            diags,
        );
    }
}

/// Reports `${` without `}` and empty `${}` on one line (first problem only).
fn check_references(text: &str, base: usize, file_id: usize, diags: &mut impl Sink) {
    let mut from = 0;
    while let Some(at) = find_open(text, from) {
        match crate::bytes::find_byte(&text.as_bytes()[at + 2..], b'}') {
            None => {
                diags.push(Diagnostic::new(
                    Problem::BadReference { unclosed: true },
                    file_id,
                    Span::new(base + at, base + text.len()),
                ));
                return;
            }
            Some(0) => {
                diags.push(Diagnostic::new(
                    Problem::BadReference { unclosed: false },
                    file_id,
                    Span::new(base + at, base + at + 3),
                ));
                return;
            }
            Some(close) => from = at + 2 + close + 1,
        }
    }
}
