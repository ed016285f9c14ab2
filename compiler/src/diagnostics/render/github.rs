//! GitHub Actions workflow annotations (`::error file=…,line=…::message`).

use crate::SourceMap;
use crate::diagnostics::{Diagnostic, Severity};
use crate::github::{Annotation, Level};

/// One workflow command per diagnostic.
pub fn github(diags: &[Diagnostic], map: &SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        let f = map.get(d.file);
        let s = f.position(d.span.start as usize);
        let e = f.position(d.span.end as usize);
        let level = match d.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nTry: ");
            message.push_str(help);
        }
        let annotation = Annotation::new(level, message)
            .file(f.path())
            .line(s.line)
            .column(s.column)
            .end(e.line, e.column)
            .title(format!("{} {}", d.code, d.code.title()));
        out.push_str(&format!("{annotation}\n"));
    }
    out
}
