//! Human rendering: the `CODE path:line:col` header, the source line with a
//! caret under the exact span (drawn by ariadne, byte-indexed), the
//! explanation and the `Try:` line.

use super::excerpt::Excerpt;
use crate::SourceMap;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::SourceFile;
use crate::style;
use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

/// Renders diagnostics for a terminal or a log; `color` adds ANSI colours.
pub fn human(diags: &[Diagnostic], map: &SourceMap, color: bool) -> String {
    let mut out = String::new();
    for (i, d) in diags.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&one(d, map, color));
    }
    out
}

fn one(d: &Diagnostic, map: &SourceMap, color: bool) -> String {
    let file = map.get(d.file);
    // Columns in characters, as the snippet box below counts them (JSON output and editors
    // get UTF-16 columns).
    let pos = char_position(file, d.span.start as usize);
    let path = file.path().to_string();
    let (kind, tint) = match d.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let code = d.code.as_str();
    let look = match d.severity {
        Severity::Error => style::BOLD_RED,
        Severity::Warning => style::BOLD_YELLOW,
    };
    let header = format!(
        "{} {}\n",
        style::paint(color, look, code),
        style::paint(color, style::BOLD, &format!("{path}:{}:{}", pos.0, pos.1))
    );
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(color);
    let len = file.text().len();
    let primary = clamp(d.span.range(), len);
    let ranges: Vec<_> = std::iter::once(primary.clone())
        .chain(d.secondary.iter().map(|s| clamp(s.span.range(), len)))
        .collect();
    // ariadne draws from an excerpt: the labelled lines, long ones cut around the labels.
    let excerpt = Excerpt::new(file, &ranges);
    let at = excerpt.range(file, &primary);
    let mut report = Report::build(kind, (path.clone(), at.clone()))
        .with_config(config)
        .with_label(
            Label::new((path.clone(), at))
                .with_message(&d.label)
                .with_color(tint),
        );
    for (s, r) in d.secondary.iter().zip(&ranges[1..]) {
        report = report.with_label(
            Label::new((path.clone(), excerpt.range(file, r)))
                .with_message(&s.message)
                .with_color(Color::Blue),
        );
    }
    let mut buf = Vec::new();
    let text = one_line_breaks(&excerpt.text);
    let source = Source::from(text.as_ref());
    let written = report.finish().write((path.clone(), source), &mut buf);
    let snippet = match written {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(_) => String::new(),
    };
    // Drop ariadne's own "Error: …" title: our header replaces it.
    let lines: Vec<&str> = snippet.lines().skip(1).collect();
    let mut body = String::new();
    let mut boxed = false;
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim_end();
        if !boxed && let Some(fixed) = box_header(l, pos) {
            // The excerpt's columns are not the file's: the box names the header's place.
            boxed = true;
            body.push_str(&fixed);
        } else {
            match related_header(l, &lines[i + 1..], d, file) {
                Some(fixed) => body.push_str(&fixed),
                None => body.push_str(l),
            }
        }
        body.push('\n');
    }
    let mut out = header;
    out.push_str(&body);
    out.push_str(&d.message);
    out.push('\n');
    if let Some(help) = &d.help {
        out.push_str("Try: ");
        out.push_str(help);
        out.push('\n');
    }
    out
}

/// Keeps a range inside the text (ariadne needs it) and non-inverted.
fn clamp(r: std::ops::Range<usize>, len: usize) -> std::ops::Range<usize> {
    let s = r.start.min(len);
    s..r.end.clamp(s, len)
}

/// `(line, column)` of a byte offset, both 1-based, the column counted in characters.
fn char_position(file: &SourceFile, offset: usize) -> (usize, usize) {
    let at = file.floor_char_boundary(offset.min(file.text().len()));
    let line = file.line_index(at);
    let start = file.line_span(line).start as usize;
    (line + 1, file.text()[start..at].chars().count() + 1)
}

/// The report's box header (`╭─[ path:L:C ]`) naming `pos` instead of the excerpt's column.
fn box_header(line: &str, pos: (usize, usize)) -> Option<String> {
    let plain = strip_ansi(line);
    let inner = plain
        .trim_start()
        .strip_prefix("\u{256d}\u{2500}[ ")?
        .strip_suffix(" ]")?;
    let (path, _) = inner.rsplit_once(':')?.0.rsplit_once(':')?;
    Some(line.replacen(inner, &format!("{path}:{}:{}", pos.0, pos.1), 1))
}

/// The text with every line break but LF and CRLF replaced by a character of the same byte
/// length: a lone CR, a vertical tab, a form feed, NEL and the Unicode line and paragraph
/// separators are ordinary characters of a line to the compiler (`source.rs`), and must not
/// open phantom lines in the snippet (spans and character counts stay as they were).
fn one_line_breaks(text: &str) -> std::borrow::Cow<'_, str> {
    let odd = |c: char| {
        matches!(
            c,
            '\r' | '\x0B' | '\x0C' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
    };
    if !text.contains(odd) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => out.push('\r'),
            '\r' | '\x0B' | '\x0C' => out.push(' '),
            '\u{85}' => out.push('\u{a0}'),
            '\u{2028}' | '\u{2029}' => out.push('\u{2007}'),
            other => out.push(other),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// ariadne heads every group of labels with the report's own location; a related note's group
/// (`├─[ path:L:C ]`) is given the line it shows and the column of its first label there.
fn related_header(line: &str, after: &[&str], d: &Diagnostic, file: &SourceFile) -> Option<String> {
    let plain = strip_ansi(line);
    let inner = plain
        .trim_start()
        .strip_prefix("\u{251c}\u{2500}[ ")?
        .strip_suffix(" ]")?;
    let (path, _) = inner.rsplit_once(':')?.0.rsplit_once(':')?;
    let shown: usize = after.iter().find_map(|l| {
        let l = strip_ansi(l);
        let (num, rest) = l.trim_start().split_once(' ')?;
        rest.starts_with('\u{2502}').then(|| num.parse().ok())?
    })?;
    let column = std::iter::once(d.span)
        .chain(d.secondary.iter().map(|s| s.span))
        .map(|sp| char_position(file, sp.start as usize))
        .filter(|(l, _)| *l == shown)
        .map(|(_, c)| c)
        .min()?;
    Some(line.replacen(inner, &format!("{path}:{shown}:{column}"), 1))
}

/// The text without ANSI colour sequences (`ESC [ … m`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for n in chars.by_ref() {
                if n == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
