//! Writing suites back out: the Suite IR as canonical `.mcpr` text ([`print`]) and as a
//! YAML or JSON suite in the `version: 1` model ([`suite_value`], [`emit`]).

pub mod emit;
pub mod print;

use crate::ir::Suite;
use serde_json::Value;

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
