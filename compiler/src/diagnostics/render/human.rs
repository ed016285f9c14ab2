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
    let pos = file.position(d.span.start as usize);
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
            pos.line, pos.column
        )
    } else {
        format!("{code} {path}:{}:{}\n", pos.line, pos.column)
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
    let written = report
        .finish()
        .write((path.clone(), Source::from(file.text())), &mut buf);
    let snippet = match written {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(_) => String::new(),
    };
    // Drop ariadne's own "Error: …" title: our header replaces it.
    let body: String = snippet
        .lines()
        .skip(1)
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
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
