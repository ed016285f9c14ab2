//! GitHub Actions workflow annotations (`::error file=…,line=…::message`).

use crate::SourceMap;
use crate::diagnostics::{Diagnostic, Severity};

/// One workflow command per diagnostic.
pub fn github(diags: &[Diagnostic], map: &SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        let f = map.get(d.file);
        let s = f.position(d.span.start as usize);
        let e = f.position(d.span.end as usize);
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nTry: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            property(f.path()),
            s.line,
            s.column,
            e.line,
            e.column,
            property(&format!("{} {}", d.code, d.code.title())),
            data(&message)
        ));
    }
    out
}

/// Escapes a message for a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value for a workflow command.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}
