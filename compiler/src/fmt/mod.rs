//! Writing suites back out: the Suite IR as canonical `.mcpr` text ([`print`]) and as a
//! YAML or JSON suite in the `version: 1` model ([`suite_value`], [`emit`]). `mcpr convert`
//! is [`render`] of a compiled suite.

pub mod emit;
pub mod print;

use crate::ir::Suite;
use serde_json::Value;

/// The surface formats a suite can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MCP Test Language 1 (`.mcpr`).
    Mcpr,
    /// A YAML suite (`.yaml`, `.yml`).
    Yaml,
    /// A JSON suite (`.json`).
    Json,
}

/// The suite written in `format`: canonical `.mcpr`, or the `version: 1` document as YAML or
/// pretty JSON. Deterministic: the same IR always gives the same text.
pub fn render(suite: &Suite, format: Format) -> String {
    match format {
        Format::Mcpr => print::suite(suite),
        Format::Yaml => to_yaml(suite),
        Format::Json => to_json(suite),
    }
}

/// Reads a YAML or JSON suite document straight into the IR with serde.
///
/// A stop-gap until YAML/JSON lowering (located MCPLANG 6xx diagnostics, schema validation)
/// takes over this path: errors are one message with the parser's line and column. YAML goes
/// through the compiler's one YAML entry point (strict booleans, duplicate keys rejected).
pub fn read_document(text: &str, format: Format) -> Result<Suite, String> {
    match format {
        Format::Json => serde_json::from_str(text).map_err(|e| e.to_string()),
        Format::Yaml => {
            let value = crate::yaml::parse_full(text)
                .map_err(|e| format!("{} at line {} column {}", e.message, e.line, e.column))?;
            serde_json::from_value(value).map_err(|e| e.to_string())
        }
        Format::Mcpr => Err("a .mcpr file is compiled, not read as a document".into()),
    }
}

/// The suite as a `version: 1` document: the IR without what only makes sense next to the
/// `.mcpr` file it came from (each step's `source` and `flow` frames) and without `irVersion`
/// (a layout marker for tools, not part of the suite model), so the output is also a suite
/// the reference tool reads.
pub fn suite_value(suite: &Suite) -> Value {
    let mut s = suite.clone();
    strip_locations(&mut s);
    s.ir_version = None;
    serde_json::to_value(&s).unwrap_or(Value::Null)
}

/// Removes every step's source position and flow frames.
pub fn strip_locations(suite: &mut Suite) {
    for t in &mut suite.tests {
        for step in &mut t.steps {
            step.source = None;
            step.flow.clear();
        }
    }
}

/// The suite as a YAML document.
pub fn to_yaml(suite: &Suite) -> String {
    emit::document(&suite_value(suite))
}

/// The suite as pretty-printed JSON (ending with a newline).
pub fn to_json(suite: &Suite) -> String {
    let mut text = serde_json::to_string_pretty(&suite_value(suite)).unwrap_or_default();
    text.push('\n');
    text
}

/// The suite with what legitimately differs between two compilations of the same tests
/// removed, for comparing IRs across conversions:
///
/// - each step's `source` (a printed or converted file has other line numbers, and a YAML or
///   JSON suite has none) and `flow` frames (flows are expanded in the IR; the printed file
///   holds their steps in place and has no flow to point at);
/// - `irVersion` (written by the `.mcpr` compiler, absent from a converted suite, which is
///   in the `version: 1` model that has no such member).
///
/// Everything the runtime acts on — targets, settings, tests, every step's action, phase,
/// expectations, captures, exports, names and variables — is kept and must be equal.
pub fn comparable(suite: &Suite) -> Suite {
    let mut s = suite.clone();
    strip_locations(&mut s);
    s.ir_version = None;
    s
}
