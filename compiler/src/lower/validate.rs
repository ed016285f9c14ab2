//! What every surface's suite must satisfy, whatever it was written in: the suite schema
//! (`docs/schema/suite.schema.json`) and regular expressions that compile. A YAML suite is
//! checked against both with its located tree (`yaml.rs`); a `.mcpr` file's lowered suite is
//! checked here the same way, so what `.mcpr` accepts, `mcpr convert` writes as YAML that
//! `mcpr check` accepts too. Problems are located at the line of the step they concern.

use super::Lower;
use super::yaml::lean::Lean;
use super::yaml::{schema, tree};
use crate::diagnostics::Problem;
use crate::diagnostics::{Collected, Diagnostic};
use crate::ir::{JsonAssertions, Step, Suite, Test, WhereCondition};
use crate::source::Span;
use serde_json::{Map, Value};

/// Every regular expression of a suite, with its path in the suite document (`tests`, 0,
/// `steps`, 1, `assert`, `json`, 0, `matches`).
pub fn patterns(suite: &Suite) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for (i, t) in suite.tests.iter().enumerate() {
        test_patterns(t, i, &mut out);
    }
    source_patterns(suite, &mut out);
    out
}

/// The regular expressions of the test at index `i`, as [`patterns`] lists them.
pub(super) fn test_patterns(t: &Test, i: usize, out: &mut Vec<(Vec<String>, String)>) {
    for (j, s) in t.steps.iter().enumerate() {
        step_patterns(s, i, j, out);
    }
}

/// The regular expressions of the suite's data sources, as [`patterns`] lists them.
pub(super) fn source_patterns(suite: &Suite, out: &mut Vec<(Vec<String>, String)>) {
    if let Some(sources) = &suite.data_sources {
        for (name, ds) in sources.iter() {
            for (column, c) in ds.filter.iter().flat_map(|f| f.iter()) {
                if let WhereCondition::Operators(o) = c
                    && let Some(p) = &o.matches
                {
                    let at = ["dataSources", name, "where", column, "matches"];
                    out.push((at.iter().map(|s| s.to_string()).collect(), p.clone()));
                }
            }
        }
    }
}

/// The regular expressions of step `j` of test `i`, each with its whole path.
fn step_patterns(s: &Step, i: usize, j: usize, out: &mut Vec<(Vec<String>, String)>) {
    each_step_pattern(s, &mut |rest, pattern| {
        let mut path = vec![
            "tests".to_string(),
            i.to_string(),
            "steps".into(),
            j.to_string(),
            "assert".into(),
        ];
        path.extend(rest.iter().map(|r| r.to_string()));
        out.push((path, pattern.to_string()));
    });
}

/// Each regular expression of a step's assertions, with its path under `assert` (`json`, 0,
/// `matches`). Most steps have none; a path is only spelt out for a pattern found.
fn each_step_pattern(s: &Step, emit: &mut dyn FnMut(&[&str], &str)) {
    let Some(a) = &s.assert else { return };
    if let Some(m) = a.error.as_ref().and_then(|e| e.matches.as_ref()) {
        emit(&["error", "matches"], m);
    }
    let (list, one) = match &a.json {
        Some(JsonAssertions::List(l)) => (l.as_slice(), false),
        Some(JsonAssertions::One(o)) => (std::slice::from_ref(o.as_ref()), true),
        None => (&[][..], false),
    };
    for (k, x) in list.iter().enumerate() {
        if x.matches.is_none() && x.schema.is_none() {
            continue;
        }
        let k = k.to_string();
        let base: &[&str] = if one { &["json"] } else { &["json", &k] };
        if let Some(m) = &x.matches {
            emit(&[base, &["matches"]].concat(), m);
        }
        if let Some(sc) = &x.schema {
            let mut found = Vec::new();
            schema_patterns(sc, &mut Vec::new(), &mut found);
            for (rest, pattern) in found {
                let mut full = [base, &["schema"]].concat();
                full.extend(rest.iter().map(String::as_str));
                emit(&full, &pattern);
            }
        }
    }
}

/// The `pattern` values and `patternProperties` keys of a JSON Schema, at any depth.
pub(super) fn schema_patterns(
    schema: &Map<String, Value>,
    at: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    for (key, value) in schema {
        at.push(key.clone());
        match (key.as_str(), value) {
            ("pattern", Value::String(p)) => out.push((at.clone(), p.clone())),
            ("patternProperties", Value::Object(props)) => {
                for (p, sub) in props {
                    at.push(p.clone());
                    out.push((at.clone(), p.clone()));
                    if let Value::Object(m) = sub {
                        schema_patterns(m, at, out);
                    }
                    at.pop();
                }
            }
            (_, Value::Object(m)) => schema_patterns(m, at, out),
            (_, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Object(m) = item {
                        at.push(i.to_string());
                        schema_patterns(m, at, out);
                        at.pop();
                    }
                }
            }
            _ => {}
        }
        at.pop();
    }
}

/// Checks a `.mcpr` file's lowered suite as a YAML suite is checked (schema, patterns).
/// Runs when the file has no error so far: its own diagnostics come first.
pub fn lowered(l: &mut Lower<'_>, suite: &mut Suite) {
    report_patterns(l, suite);
    report_closed_values(l, suite);
    if valid_a_test_at_a_time(suite) {
        return;
    }
    located_problems(l, suite, None);
}

/// Reports each value outside its closed set (`ir::sets`), as YAML suites report it.
fn report_closed_values(l: &mut Lower<'_>, suite: &Suite) {
    for v in crate::ir::sets::closed_values(suite) {
        let (file, span) = place(l, suite, &v.path);
        l.report(super::yaml::outside_set(v), file, span);
    }
}

/// Reports each regular expression of the suite that does not compile.
fn report_patterns(l: &mut Lower<'_>, suite: &Suite) {
    for (path, pattern) in patterns(suite) {
        if let Err(e) = crate::regexp::check_template(&pattern) {
            let (file, span) = place(l, suite, &path);
            l.report(Problem::BadPattern { reason: e.reason }, file, span);
        }
    }
}

/// What is wrong with a regular expression a suite gives: it does not compile (MCPLANG108),
/// or it repeats without bound a group that itself repeats without bound (MCPLANG907, a
/// warning: it can take exponential time). `.mcpr` files judge their patterns where they
/// are written (`syntax::forms`, and schema blocks as they are attached); YAML and JSON
/// suites judge them all after lowering.
pub(super) fn pattern_problem(pattern: &str) -> Option<Problem> {
    if let Err(e) = crate::regexp::check_template(pattern) {
        return Some(Problem::BadPattern { reason: e.reason });
    }
    crate::regexp::nested_unbounded_quantifier(pattern).map(|group| Problem::SlowPattern {
        group: group.to_string(),
    })
}

/// Reports the schema problems of the whole suite document, worded as YAML suites word them.
/// With `hollow`, the suite lacks the tests judged alone already (`true` at their indexes
/// among all the tests): each stands in the document as an empty object, so that the others
/// keep their indexes in the paths the problems name, and its problems are not reported.
fn located_problems(l: &mut Lower<'_>, suite: &Suite, hollow: Option<&[bool]>) {
    let Ok(mut doc) = serde_json::to_value(suite) else {
        return;
    };
    // Index among all the tests → index in `suite.tests`, for the tests the suite holds.
    let mut held: Vec<Option<usize>> = Vec::new();
    if let Some(hollow) = hollow
        && let Some(Value::Array(tests)) = doc.get_mut("tests")
    {
        let mut kept = std::mem::take(tests).into_iter();
        let mut next = 0;
        for &h in hollow {
            if h {
                held.push(None);
                tests.push(Value::Object(Map::new()));
            } else {
                held.push(Some(next));
                next += 1;
                tests.extend(kept.next());
            }
        }
    }
    let place_at = |path: &[String]| -> Option<Vec<String>> {
        let mut path = path.to_vec();
        if hollow.is_some()
            && let [t, i, ..] = path.as_mut_slice()
            && t == "tests"
        {
            let at = i.parse::<usize>().ok().and_then(|i| held.get(i).copied());
            *i = at??.to_string();
        }
        Some(path)
    };
    if schema::is_valid(&doc) {
        return;
    }
    // Rare: build a located tree of the document to word each problem as YAML suites do.
    let Ok(text) = serde_json::to_string(&doc) else {
        return;
    };
    let Ok(tree) = tree::read(&text) else {
        return;
    };
    for (path, problem) in schema::problems_by_path(&tree, &doc) {
        // A hollow test's problems were reported when it was judged alone.
        let Some(path) = place_at(&path) else {
            continue;
        };
        let (file, span) = place(l, suite, &path);
        l.report(problem, file, span);
    }
}

/// What `check` learnt of the tests it judged one at a time as they were lowered, so that
/// their steps need not be kept (see [`test_alone`] and [`judged`]).
#[derive(Debug, Default)]
pub struct Judged {
    /// The problems of the judged tests' regular expressions.
    pub diags: Collected,
    /// Per test, whether it was judged alone and let go ("hollow": the suite lacks it).
    pub hollow: Vec<bool>,
    /// Some test did not satisfy the schema on its own (it was kept whole).
    pub invalid: bool,
}

/// Judges one lowered test as [`lowered`] would (the problems of its regular expressions,
/// whether it satisfies the schema); `None` when it does not satisfy the schema: the test
/// must then be kept whole for [`judged`] to word its problems.
pub fn test_alone(l: &Lower<'_>, test: &mut Test) -> Option<Vec<Diagnostic>> {
    if !test_is_valid(test) {
        return None;
    }
    let mut diags = Vec::new();
    let mut outside = Vec::new();
    crate::ir::sets::test_values(test, 0, &mut outside);
    for v in outside {
        let (file, span) = place_step(l, test.steps.get(step_index(&v.path)));
        diags.push(Diagnostic::new(super::yaml::outside_set(v), file, span));
    }
    for step in &test.steps {
        each_step_pattern(step, &mut |_, pattern| {
            if let Err(e) = crate::regexp::check_template(pattern) {
                let (file, span) = place_step(l, Some(step));
                let problem = Problem::BadPattern { reason: e.reason };
                diags.push(Diagnostic::new(problem, file, span));
            }
        });
    }
    Some(diags)
}

/// [`test_alone`] of steps a long test let go of before its end (see `mcpr::long`), judged
/// as the steps of a test named `name` with no other member.
pub fn steps_alone(l: &Lower<'_>, name: &str, steps: Vec<Step>) -> Option<Vec<Diagnostic>> {
    let mut test = Test::new(name, steps);
    test.id = Some(crate::names::slug(name));
    test_alone(l, &mut test)
}

impl Judged {
    /// Nothing judged yet; at most `keep` problems of each file worded ([`Collected`]).
    pub fn new(keep: usize) -> Self {
        Judged {
            diags: Collected::new(keep),
            ..Judged::default()
        }
    }
}

/// [`lowered`] of a suite some of whose tests were judged by [`test_alone`] and left out
/// ("hollow"): the same diagnostics, the hollow tests' from `judged`.
pub fn judged(l: &mut Lower<'_>, suite: &mut Suite, judged: Judged) {
    l.diags.append(judged.diags);
    report_patterns(l, suite);
    report_closed_values(l, suite);
    // The suite's first test is never judged alone: it is kept whole and judged here.
    let first_valid = |suite: &mut Suite| suite.tests.first_mut().is_none_or(test_is_valid);
    if !judged.invalid && shell_is_valid(suite) && first_valid(suite) {
        return;
    }
    located_problems(l, suite, Some(&judged.hollow));
}

/// The step index of a path `tests`, i, `steps`, j, ….
fn step_index(path: &[String]) -> usize {
    path.get(3)
        .and_then(|j| j.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Whether the suite satisfies the schema, judged without its whole document in memory:
/// the suite's shell with its first test's ([`shell_is_valid`]), then every test in parts
/// of its steps ([`test_is_valid`]). The JSON of a large suite's tests is many times the
/// size of its text; one part's is small.
fn valid_a_test_at_a_time(suite: &mut Suite) -> bool {
    shell_is_valid(suite) && suite.tests.iter_mut().all(test_is_valid)
}

/// Whether one test satisfies the schema's test definition, judged [`STEPS_AT_ONCE`] steps
/// at a time: the test with each part of its steps in turn (a test's `steps` asks nothing
/// of its members together), so a test of a million steps never has its whole document
/// in memory. Each part is judged on its lean document without the positions and flow
/// frames the compiler gives each step and assertion: they are made from the file map and
/// the flow declarations, never from a value the author wrote, and `convert` leaves them
/// out ([`crate::fmt::strip_locations`]). (The suite's first test is judged with them, in
/// its shell.) Nor with the values the schema leaves open ([`Step::take_open`]).
pub(super) fn test_is_valid(test: &mut Test) -> bool {
    let mut steps = std::mem::take(&mut test.steps);
    // Positions, frames and open values moved out of a part's steps while it is judged,
    // then put back: a frame and an open value per step, a position per step and per
    // assertion (two for most steps).
    let part = steps.len().clamp(1, STEPS_AT_ONCE);
    let mut sources = Vec::with_capacity(2 * part);
    let mut flows = Vec::with_capacity(part);
    let mut opens = Vec::with_capacity(part);
    // The thread's document, cleared and filled again for each part of each test.
    let mut doc = SCRATCH.take();
    let mut judge = |test: &Test, part: &mut [Step]| {
        for step in part.iter_mut() {
            step.each_source(|s| sources.push(s.take()));
            flows.push(std::mem::take(&mut step.flow));
            opens.push(step.take_open());
        }
        doc.clear();
        let valid = test_doc(&mut doc, test, part)
            .is_some_and(|node| schema::lean_test_is_valid(doc.node(node)));
        let (mut taken, mut frames) = (sources.drain(..), flows.drain(..));
        let mut open = opens.drain(..);
        for step in part.iter_mut() {
            step.each_source(|s| *s = taken.next().flatten());
            step.flow = frames.next().unwrap_or_default();
            step.put_open(open.next().flatten());
        }
        valid
    };
    let valid = if steps.is_empty() {
        judge(test, &mut [])
    } else {
        steps
            .chunks_mut(STEPS_AT_ONCE)
            .all(|part| judge(test, part))
    };
    test.steps = steps;
    // A document grown past a part of ordinary steps is not kept for the next test.
    if doc.footprint() <= SCRATCH_KEPT {
        SCRATCH.set(doc);
    }
    valid
}

/// How many steps of a test one document holds when the test is judged.
const STEPS_AT_ONCE: usize = 256;

thread_local! {
    /// The document [`test_is_valid`] judges each part in: its buffers, grown to the size of
    /// a part, serve the thread's next test instead of growing again from nothing (a fresh
    /// document per test spent more on growing its lists than a value per allocation did).
    static SCRATCH: std::cell::Cell<Lean> = std::cell::Cell::new(Lean::default());
}

/// The most a kept [`SCRATCH`] document holds, in bytes: a part of 256 ordinary steps needs
/// a few hundred KiB; one of large values is let go.
const SCRATCH_KEPT: usize = 4 << 20;

/// Whether the suite satisfies the schema with its first test, with its first step only,
/// as its only test (positions kept; the step's open value set aside, [`Step::take_open`]):
/// what [`test_is_valid`] does not judge of a suite.
/// Nothing is copied: the tests are set aside while the rest of the suite is read.
fn shell_is_valid(suite: &mut Suite) -> bool {
    let mut doc = Lean::default();
    let all = std::mem::take(&mut suite.tests);
    let node = doc.add(&*suite);
    suite.tests = all;
    let Ok(node) = node else {
        return false;
    };
    if let Some(first) = suite.tests.first_mut() {
        let mut steps = std::mem::take(&mut first.steps);
        let one = steps.len().min(1);
        let open = steps.first_mut().and_then(Step::take_open);
        let shell = test_doc(&mut doc, first, &steps[..one]);
        if let Some(step) = steps.first_mut() {
            step.put_open(open);
        }
        first.steps = steps;
        let Some(shell) = shell else {
            return false;
        };
        let tests = doc.add_array(&[shell]);
        doc.set_member(node, "tests", tests);
    }
    schema::lean_is_valid(doc.node(node))
}

/// Adds to `doc` the lean document of `test` (its steps set aside by the caller) with
/// `steps` as its steps; returns its node.
fn test_doc(doc: &mut Lean, test: &Test, steps: &[Step]) -> Option<usize> {
    let node = doc.add(test).ok()?;
    let steps = steps
        .iter()
        .map(|s| doc.add(s).ok())
        .collect::<Option<Vec<_>>>()?;
    let list = doc.add_array(&steps);
    doc.set_member(node, "steps", list);
    Some(node)
}

/// Where in the user's files a path of the suite document is written: the line of the step
/// it lies in, else the entry file's first line.
fn place(l: &Lower<'_>, suite: &Suite, path: &[String]) -> (usize, Span) {
    let step = match path {
        [t, i, s, j, ..] if t == "tests" && s == "steps" => {
            let i: usize = i.parse().unwrap_or(usize::MAX);
            let j: usize = j.parse().unwrap_or(usize::MAX);
            suite.tests.get(i).and_then(|t| t.steps.get(j))
        }
        _ => None,
    };
    place_step(l, step)
}

/// The line of `step` in the user's files, else the entry file's first line.
fn place_step(l: &Lower<'_>, step: Option<&Step>) -> (usize, Span) {
    if let Some(src) = step.and_then(|s| s.source.as_ref()) {
        let found = l
            .map
            .files()
            .iter()
            .position(|f| f.path() == &*src.file)
            .filter(|&id| (src.line as usize) <= l.map.get(id).line_count());
        if let Some(id) = found {
            let f = l.map.get(id);
            let line = f.line_span(src.line.saturating_sub(1) as usize);
            let text = &f.text()[line.range()];
            let lead = text.len() - text.trim_start().len();
            let start = line.start as usize + lead;
            return (id, Span::new(start, start + text.trim().len()));
        }
    }
    let entry = l.map.get(l.entry);
    let first = entry.line_span(0);
    (l.entry, Span::new(first.start as usize, first.end as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceMap;
    use crate::lower::{MemoryLoader, Options, compile};
    use crate::source::SourceFile;

    /// The tests of a `.mcpr` file as `compile` lowers them, positions and flow frames included.
    fn lowered(text: &str) -> Vec<Test> {
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("judged.mcpr", text.to_string()));
        let compiled = compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        assert!(
            compiled.diagnostics.is_empty(),
            "{:?}",
            compiled.diagnostics
        );
        compiled.suite.expect("a suite").tests
    }

    const SUITE: &str = "MCP Test 1\nSuite: \"s\"\nServer: node s.js\n\n\
        Flow: \"Check sum\"\n  Inputs: a\n  Call tool \"add\" with:\n    a: \"${a}\"\n  \
        Expect \"structuredContent.sum\" equals 3\n\n\
        Test: \"first\"\n  Call tool \"echo\"\n\n\
        Test: \"second\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect it succeeds\n  \
        Expect \"content[0].text\" matches \"^h\"\n  Expect \"content[0].text\" contains \"h\"\n  \
        Use flow \"Check sum\" with:\n    a: 1\n";

    #[test]
    fn a_test_is_judged_without_its_locations_and_gets_them_back() {
        let tests = lowered(SUITE);
        let second = &tests[1];
        // What is moved out is there to move: positions of steps and assertions, flow frames.
        assert!(second.steps.iter().all(|s| s.source.is_some()));
        assert!(second.steps.iter().any(|s| !s.flow.is_empty()));
        assert!(
            second
                .steps
                .iter()
                .any(|s| s.assert.as_ref().is_some_and(|a| a.json.is_some()))
        );
        let mut judged = second.clone();
        assert!(test_is_valid(&mut judged));
        assert_eq!(
            &judged, second,
            "every position and frame is put back where it was"
        );
    }

    /// What a test is judged without ([`Step::take_open`]) is what the schema accepts
    /// whatever it holds: were the schema to constrain one of them, this fails.
    #[test]
    fn the_values_judged_without_are_left_open_by_the_schema() {
        let schema: Value = serde_json::from_str(crate::ir::SCHEMA_TEXT).unwrap();
        let open = |pointer: &str, kind: Option<&str>| {
            let member = schema.pointer(pointer).and_then(Value::as_object);
            let member = member.unwrap_or_else(|| panic!("{pointer} is in the schema"));
            let constraints: Vec<&String> = member
                .keys()
                .filter(|k| *k != "description" && *k != "type")
                .collect();
            assert!(
                constraints.is_empty(),
                "{pointer} constrains {constraints:?}"
            );
            assert_eq!(
                member.get("type").and_then(Value::as_str),
                kind,
                "{pointer}"
            );
        };
        open(
            "/$defs/step/properties/tool/properties/arguments",
            Some("object"),
        );
        open(
            "/$defs/step/properties/set/properties/arguments",
            Some("object"),
        );
        open("/$defs/step/properties/request/properties/params", None);
        open("/$defs/native/properties/params", None);
        let text = format!(
            "{SUITE}\nTest: \"third\"\n  Send \"ping\" with:\n    deep: [1, {{a: b}}]\n  \
             Call tool \"slow\" with progress and cancel after 500 ms with:\n    n: 2\n  \
             Set \"low\" using \"lowercase\" with:\n    text: ABC\n  \
             Send \"echo\" with:\n    text: \"${{low}}\"\n"
        );
        let tests = lowered(&text);
        for test in &tests[1..] {
            let mut judged = test.clone();
            assert!(test_is_valid(&mut judged));
            assert_eq!(&judged, test, "every open value is put back");
        }
        let mut third = tests[2].clone();
        assert!(third.steps.iter_mut().all(|s| s.take_open().is_some()));
        assert!(
            third.steps.iter_mut().all(|s| s
                .take_open()
                .is_some_and(|v| { v.as_object().is_some_and(Map::is_empty) || v.is_null() })),
            "what is left in their place is the least value of its kind"
        );
    }

    #[test]
    fn a_test_the_schema_refuses_is_still_refused() {
        let mut test = lowered(SUITE).swap_remove(1);
        test.name = String::new();
        let before = test.clone();
        assert!(
            !test_is_valid(&mut test),
            "an empty name breaks minLength 1"
        );
        assert_eq!(test, before);
        let mut test = lowered(SUITE).swap_remove(1);
        test.retries = Some(101);
        assert!(
            !test_is_valid(&mut test),
            "retries above the maximum of 100"
        );
    }

    /// A test is judged in parts of its steps; a step in any part that the schema refuses
    /// refuses the test, as the whole suite document's judgement does.
    #[test]
    fn a_late_step_the_schema_refuses_refuses_its_test_and_the_suite() {
        let mut tests = lowered(SUITE);
        // A third test longer than one part.
        let mut long = tests[1].clone();
        long.name = "long".into();
        let step = long.steps[0].clone();
        long.steps.resize(STEPS_AT_ONCE * 2 + 3, step);
        tests.push(long);
        let last = tests[1].steps.len() - 1;
        assert!(last >= 1, "the test has steps past its first");
        let cases = [
            (0, 0),
            (1, 0),
            (1, last),
            (2, STEPS_AT_ONCE - 1),
            (2, STEPS_AT_ONCE),
            (2, STEPS_AT_ONCE * 2 + 2),
        ];
        for (which, at) in cases {
            let mut suite = Suite::new(crate::ir::Target::stdio("node", vec![]), tests.clone());
            suite.tests[which].steps[at].timeout_ms = Some(0);
            let whole = serde_json::to_value(&suite).expect("a document");
            assert!(!schema::is_valid(&whole), "a timeout of 0 breaks minimum 1");
            let before = suite.clone();
            assert!(
                !test_is_valid(&mut suite.tests[which]),
                "test {which}, step {at}"
            );
            assert!(
                !valid_a_test_at_a_time(&mut suite),
                "test {which}, step {at}"
            );
            assert_eq!(suite, before, "the suite is left as it was");
            suite.tests[which].steps[at].timeout_ms = Some(1000);
            assert!(
                valid_a_test_at_a_time(&mut suite),
                "test {which}, step {at}"
            );
        }
    }
}
