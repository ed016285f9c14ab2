//! Human rendering: the `CODE path:line:col` header, the source line with a
//! caret under the exact span (drawn by ariadne, byte-indexed), the
//! explanation and the `Try:` line.

use crate::SourceMap;
use crate::diagnostics::{Diagnostic, Severity};
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
    let pos = char_position(file.text(), d.span.start as usize);
    let path = file.path().to_string();
    let (kind, tint) = match d.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let code = d.code.as_str();
    let header = if color {
        let c = if d.severity == Severity::Error {
            "31"
        } else {
            "33"
        };
        format!(
            "\x1b[1;{c}m{code}\x1b[0m \x1b[1m{path}:{}:{}\x1b[0m\n",
            pos.0, pos.1
        )
    } else {
        format!("{code} {path}:{}:{}\n", pos.0, pos.1)
    };
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(color);
    let range = clamp(d.span.range(), file.text().len());
    let mut report = Report::build(kind, (path.clone(), range.clone()))
        .with_config(config)
        .with_label(
            Label::new((path.clone(), range))
                .with_message(&d.label)
                .with_color(tint),
        );
    for s in &d.secondary {
        report = report.with_label(
            Label::new((path.clone(), clamp(s.span.range(), file.text().len())))
                .with_message(&s.message)
                .with_color(Color::Blue),
        );
    }
    let mut buf = Vec::new();
    let text = one_line_breaks(file.text());
    let written = report
        .finish()
        .write((path.clone(), Source::from(text.as_ref())), &mut buf);
    let snippet = match written {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(_) => String::new(),
    };
    // Drop ariadne's own "Error: …" title: our header replaces it.
    let lines: Vec<&str> = snippet.lines().skip(1).collect();
    let mut body = String::new();
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim_end();
        match related_header(l, &lines[i + 1..], d, file.text()) {
            Some(fixed) => body.push_str(&fixed),
            None => body.push_str(l),
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
fn char_position(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let mut at = offset;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
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
fn related_header(line: &str, after: &[&str], d: &Diagnostic, text: &str) -> Option<String> {
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
        .map(|sp| char_position(text, sp.start as usize))
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
