//! Short rendering: one line per diagnostic, `path:line:col: severity CODE: message`.

use crate::SourceMap;
use crate::diagnostics::Diagnostic;

/// One line per diagnostic, for grep and editors' quickfix lists.
pub fn short(diags: &[Diagnostic], map: &SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        let file = map.get(d.file);
        let p = file.position(d.span.start as usize);
        out.push_str(&format!(
            "{}:{}:{}: {} {}: {} ({})\n",
            file.path(),
            p.line,
            p.column,
            d.severity.as_str(),
            d.code,
            d.message,
            d.label
        ));
    }
    out
}
