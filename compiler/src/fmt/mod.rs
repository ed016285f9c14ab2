//! Writing suites back out: the Suite IR as canonical `.mcpr` text ([`print`]) and as a
//! YAML or JSON suite in the `version: 1` model ([`suite_value`], [`emit`]). `mcpr convert`
//! is [`render`] of a compiled suite. `mcpr fmt` is [`format_source`]: the canonical layout
//! of a `.mcpr` source, comments, flows and imports kept ([`layout`]).

pub mod emit;
pub mod layout;
pub mod print;

pub use layout::{FormatError, format_source};

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

/// Removes every step's and assertion's source position and the flow frames.
pub fn strip_locations(suite: &mut Suite) {
    for t in &mut suite.tests {
        for step in &mut t.steps {
            step.clear_locations();
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

/// [`comparable`], plus the defaults a suite leaves unwritten spelled out the way the runtime
/// applies them, so that two suites that run the same compare equal whichever format they
/// were written in:
///
/// - a test without `id` has the slug of its name (what the runtime uses, and what the
///   `.mcpr` compiler writes); `logicalName` equal to the name is the same as none;
/// - a stdio target without `args` starts the program with no arguments (`args: []`);
/// - empty containers are the same as absent ones (`variables: {}`, `dependsOn: []`,
///   `requires: {}`, `budgets: []`, `client: {}`, `snapshots: {}`, `extensions: {}`,
///   `defaults: {}`), `skip: false` is no skip, `continueOnFailure: false` is the
///   default (a failing step stops the test), as are `isolated: false` and
///   `session: perTest`;
/// - a step's settings as the runtime reads them ([`canonical_step`]).
///
/// `.mcpr` files cannot write these differences, so a YAML or JSON suite that uses them
/// converts to `.mcpr` and back to this form.
pub fn canonical(suite: &Suite) -> Suite {
    use crate::ir::{Skip, Target};
    let mut s = comparable(suite);
    let args = |t: &mut Target| {
        if let Target::Stdio(st) = t
            && st.args.is_none()
        {
            st.args = Some(Vec::new());
        }
    };
    if let Some(t) = &mut s.target {
        args(t);
    }
    for map in [&mut s.targets, &mut s.servers] {
        if map.as_ref().is_some_and(|m| m.is_empty()) {
            *map = None;
        }
        if let Some(m) = map {
            let names: Vec<String> = m.keys().map(str::to_string).collect();
            for n in names {
                if let Some(t) = m.get_mut(&n) {
                    args(t);
                }
            }
        }
    }
    if let Some(d) = &mut s.defaults
        && d.session == Some(crate::ir::SessionMode::PerTest)
    {
        d.session = None;
    }
    if s.defaults
        .as_ref()
        .is_some_and(|d| *d == Default::default())
    {
        s.defaults = None;
    }
    if s.budgets.as_ref().is_some_and(Vec::is_empty) {
        s.budgets = None;
    }
    if let Some(snap) = &mut s.snapshots {
        if snap.ignore.as_ref().is_some_and(Vec::is_empty) {
            snap.ignore = None;
        }
        if snap.file.is_none() && snap.ignore.is_none() {
            s.snapshots = None;
        }
    }
    if s.client.as_ref().is_some_and(|c| c.is_empty()) {
        s.client = None;
    }
    if s.extensions
        .as_ref()
        .is_some_and(|e| *e == Default::default())
    {
        s.extensions = None;
    }
    if s.data_sources.as_ref().is_some_and(|d| d.is_empty()) {
        s.data_sources = None;
    }
    for t in &mut s.tests {
        if t.id.is_none() {
            t.id = Some(crate::names::slug(&t.name));
        }
        if t.logical_name.as_ref() == Some(&t.name) && t.for_each.is_none() {
            t.logical_name = None;
        }
        if t.for_each.is_some() && t.logical_name.is_none() {
            t.logical_name = Some(t.name.clone());
        }
        if t.continue_on_failure == Some(false) {
            t.continue_on_failure = None;
        }
        if t.isolated == Some(false) {
            t.isolated = None;
        }
        match &t.skip {
            Some(Skip::Flag(false)) => t.skip = None,
            Some(Skip::Reason(r)) if r.trim().is_empty() => t.skip = Some(Skip::Flag(true)),
            _ => {}
        }
        if t.variables.as_ref().is_some_and(|v| v.is_empty()) {
            t.variables = None;
        }
        if t.depends_on.as_ref().is_some_and(Vec::is_empty) {
            t.depends_on = None;
        }
        if let Some(r) = &mut t.requires {
            if r.capabilities.as_ref().is_some_and(Vec::is_empty) {
                r.capabilities = None;
            }
            if r.protocol_versions.as_ref().is_some_and(Vec::is_empty) {
                r.protocol_versions = None;
            }
            if r.capabilities.is_none() && r.protocol_versions.is_none() {
                t.requires = None;
            }
        }
        for step in &mut t.steps {
            *step = canonical_step(step);
        }
    }
    s
}

/// A step's settings as the runtime reads them: no `phase` is the test phase; `always` is
/// only meaningful as `true` outside the cleanup phase (cleanup steps always run, and
/// `always: false` is the default); a tool call without a name is shown as
/// `Call tool “NAME”`, the name `.mcpr` gives it; an `assert.json` written as one object is
/// the list of that one assertion.
pub fn canonical_step(step: &crate::ir::Step) -> crate::ir::Step {
    use crate::ir::{JsonAssertions, Phase, StepKind};
    let mut s = step.clone();
    if let Some(a) = &mut s.assert
        && let Some(JsonAssertions::One(one)) = &a.json
    {
        a.json = Some(JsonAssertions::List(vec![(**one).clone()]));
    }
    let phase = s.phase.unwrap_or(Phase::Test);
    s.phase = Some(phase);
    if phase == Phase::Cleanup || s.always == Some(false) {
        s.always = None;
    }
    if s.name.is_none()
        && let StepKind::Tool(t) = &s.kind
    {
        s.name = Some(format!("Call tool \u{201c}{}\u{201d}", t.name));
    }
    s
}

/// The first member where two suites differ after [`canonical`], as `path: left ≠ right`
/// (JSON pointers into the suite document), or `None` when they are the same.
pub fn first_difference(a: &Suite, b: &Suite) -> Option<String> {
    let (a, b) = (canonical(a), canonical(b));
    if a == b {
        return None;
    }
    let (a, b) = (
        serde_json::to_value(&a).unwrap_or(Value::Null),
        serde_json::to_value(&b).unwrap_or(Value::Null),
    );
    Some(diff(&a, &b, String::new()).unwrap_or_else(|| "(order of members)".into()))
}

/// The suite with every step's name left out (tool calls then take their default name).
fn without_step_names(suite: &Suite) -> Suite {
    let mut s = suite.clone();
    for step in s.tests.iter_mut().flat_map(|t| t.steps.iter_mut()) {
        step.name = None;
    }
    s
}

fn diff(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = diff(v, w, format!("{at}/{k}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{at}/{k}: {v} ≠ (absent)")),
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, w)| format!("{at}/{k}: (absent) ≠ {w}"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| diff(v, w, format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!(
            "{}: {a} ≠ {b}",
            if at.is_empty() { "/" } else { &at }
        )),
    }
}

/// The suite as `.mcpr`, proven: the printed text is compiled again and must give the same
/// suite (after [`canonical`]). The error names the first member `.mcpr` could not carry.
pub fn to_mcpr_checked(suite: &Suite) -> Result<String, String> {
    to_mcpr_checked_with(suite, print::Options::default())
}

/// [`to_mcpr_checked`] with printer options. With `names_as_comments` the proof compares the
/// suites without their step names, which the printed text keeps as comments where its
/// phrases give others.
pub fn to_mcpr_checked_with(suite: &Suite, options: print::Options) -> Result<String, String> {
    let text = print::suite_with(suite, options);
    let mut map = crate::SourceMap::new();
    let id = map.add(crate::source::SourceFile::new(
        "converted.mcpr",
        text.clone(),
    ));
    let compiled = crate::lower::compile(
        &mut map,
        id,
        &crate::lower::MemoryLoader::default(),
        &crate::lower::Options::default(),
    );
    if let Some(d) = compiled.diagnostics.iter().find(|d| d.is_error()) {
        return Err(format!(
            "MCP Test Language cannot carry every detail of this suite: the printed text does not compile ({})",
            crate::diagnostics::render::short(std::slice::from_ref(d), &map).trim_end()
        ));
    }
    let Some(back) = compiled.suite else {
        return Err("the printed suite has no tests".into());
    };
    let difference = if options.names_as_comments {
        first_difference(&without_step_names(suite), &without_step_names(&back))
    } else {
        first_difference(suite, &back)
    };
    match difference {
        None => Ok(text),
        Some(d) => Err(format!(
            "MCP Test Language cannot carry every detail of this suite: {d} (suite ≠ printed)"
        )),
    }
}
