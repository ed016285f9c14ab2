//! What a test and its steps came to: failures with their location and context, and the
//! results every report reads (the [`Outcome`] itself sits beside the run classes, in
//! `crate::codes`).

use mcpr_compiler::ir::{self, Phase, SourceLocation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

use crate::codes::{Outcome, RunCode};
use crate::error::{Error, LastMessage};
use crate::redact::{MASK, Redactor};
use crate::transcript::Direction;

/// Where a test's data came from: `data` in the reports.
#[derive(Debug, Clone, PartialEq)]
pub enum TestData {
    /// A data row, reported as `{source, row, id, fingerprint}`. The rows of a set share its
    /// source and fingerprint: a hundred thousand results hold one copy of each.
    Row {
        /// What the rows were read from.
        source: Arc<str>,
        /// The row's 1-based number.
        row: usize,
        /// The row's id (its `caseId`, else its `id`, else its number).
        id: String,
        /// The fingerprint of the row set.
        fingerprint: Arc<str>,
    },
    /// Any other data as JSON: what a test was written with, or a report read back.
    Json(Value),
}

impl TestData {
    /// The data as the reports show it.
    pub fn to_value(&self) -> Value {
        match self {
            TestData::Json(v) => v.clone(),
            // A row's four members always make a JSON object.
            row => serde_json::to_value(row).unwrap_or_default(),
        }
    }

    /// Masks what the redactor masks; a row that keeps every text stays shared.
    fn redact(&mut self, redactor: &Redactor) {
        if let TestData::Json(v) = self {
            return redactor.value(v);
        }
        let shown = self.to_value();
        let mut masked = shown.clone();
        redactor.value(&mut masked);
        if masked != shown {
            *self = TestData::Json(masked);
        }
    }
}

impl Serialize for TestData {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            TestData::Row {
                source,
                row,
                id,
                fingerprint,
            } => {
                let mut map = serializer.serialize_map(Some(4))?;
                map.serialize_entry("source", &**source)?;
                map.serialize_entry("row", row)?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("fingerprint", &**fingerprint)?;
                map.end()
            }
            TestData::Json(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for TestData {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(TestData::Json)
    }
}

/// One attempt of a retried test before the attempt it is reported by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// `failed` or `errored`.
    pub status: Outcome,
    /// Milliseconds from opening the attempt's session to its last step.
    pub duration_ms: u64,
    /// Why it did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The shared session it ran in, in a run that shares sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<u64>,
}

/// Why a step or a test did not pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// Stable code (`MCP-ASSERT-001`, `MCP-TIMEOUT-001`, `MCP-DEP-003`, …).
    pub code: RunCode,
    /// What went wrong, in one or a few sentences.
    pub message: String,
    /// What was expected, as people read it (`contains "bye"`, `"y"`).
    #[serde(
        rename = "expectedText",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub expected: Option<String>,
    /// What came back, as people read it.
    #[serde(
        rename = "actualText",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub actual: Option<String>,
    /// The value the check compared with, when it names one (`equals`, `contains`, a
    /// snapshot, an exact error message, a schema), as JSON.
    #[serde(rename = "expected", default, skip_serializing_if = "Option::is_none")]
    pub expected_value: Option<Value>,
    /// The value that came back, when there was one, as JSON.
    #[serde(rename = "actual", default, skip_serializing_if = "Option::is_none")]
    pub actual_value: Option<Value>,
    /// The failing step's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Where the failing statement is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<SourceLocation>,
    /// The flow calls the failing step came from, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<ir::FlowFrame>,
    /// The last MCP message exchanged, with its direction and kind (in JSON:
    /// `{direction, kind, message}` with the message as JSON, or `text` when it is not JSON).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "last_message"
    )]
    pub last_message: Option<LastMessage>,
    /// The server's exit status, when it died.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<String>,
    /// The last lines of the server's stderr, when it died.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

/// `(received, response) {…}`: a last message as people read it.
pub fn show_last_message(m: &LastMessage) -> String {
    let dir = match m.direction {
        Direction::Sent => "sent",
        Direction::Received => "received",
    };
    format!("({dir}, {}) {}", m.kind, m.text)
}

/// The JSON form of a failure's last message: the message itself as JSON when its text is
/// JSON, else its text (a line that was not JSON, or one shortened because it was huge).
mod last_message {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use crate::error::LastMessage;
    use crate::transcript::{Direction, MessageKind};

    #[derive(Serialize, Deserialize)]
    struct Shown {
        direction: Direction,
        kind: MessageKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    }

    pub(super) fn serialize<S: Serializer>(
        m: &Option<LastMessage>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        m.as_ref()
            .map(|m| {
                let message = serde_json::from_str::<Value>(&m.text).ok();
                Shown {
                    direction: m.direction,
                    kind: m.kind,
                    text: message.is_none().then(|| m.text.clone()),
                    message,
                }
            })
            .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<LastMessage>, D::Error> {
        Ok(Option::<Shown>::deserialize(d)?.map(|s| LastMessage {
            direction: s.direction,
            kind: s.kind,
            text: s
                .text
                .or_else(|| s.message.map(|v| v.to_string()))
                .unwrap_or_default(),
        }))
    }
}

impl Failure {
    /// A failure with its code and message, and nothing else known.
    pub fn new(code: RunCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            expected: None,
            actual: None,
            expected_value: None,
            actual_value: None,
            step: None,
            location: None,
            flow: Vec::new(),
            last_message: None,
            exit_status: None,
            stderr_tail: None,
        }
    }

    pub(super) fn from_error(e: &Error) -> Failure {
        Failure {
            last_message: e.last_message.clone(),
            exit_status: e.exit_status.clone(),
            stderr_tail: e.stderr_tail.clone().filter(|t| !t.is_empty()),
            ..Failure::new(e.kind.run_code(), e.kind.to_string())
        }
    }
}

/// Status of one step that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Ran, and its expectations held.
    Passed,
    /// An expectation did not hold.
    Failed,
    /// The server or the transport broke.
    Errored,
}

/// One step that ran (steps skipped after a failure are not reported).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// Display name.
    pub name: String,
    /// JSON-RPC method, `native/<action>` or `utility/<function>`.
    pub method: String,
    /// Phase it belongs to.
    pub phase: Phase,
    /// How it went.
    pub status: StepStatus,
    /// Milliseconds, request and checks together.
    pub duration_ms: u64,
    /// When it started: microseconds after the test started (the timeline of the HTML report).
    #[serde(default)]
    pub start_us: u64,
    /// Where it is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// Why it did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Box<Failure>>,
    /// What the request returned (a result, or a tool result with `isError`), recorded only
    /// when the run keeps transcripts (`--transcript`, parity runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// The JSON-RPC error the request got (`{code, message, data}`), recorded like `response`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// What the step printed (`echo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl StepResult {
    /// Whether the step talked to the server (a request, a tool call, a native request,
    /// list or wait), as opposed to a local step.
    pub fn is_call(&self) -> bool {
        match self.method.strip_prefix("native/") {
            Some(action) => !matches!(
                action,
                "echo" | "prompt" | "queue-answer" | "check" | "save-text" | "configure-client"
            ),
            None => !self.method.starts_with("utility/"),
        }
    }
}

/// When a test ran, for the timeline of the HTML report: its lane (the job slot it ran in)
/// and the phases of its session, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// The job slot the test ran in, from 0 (at most `--jobs` lanes).
    pub lane: usize,
    /// When the test started, after the suite started.
    pub start_us: u64,
    /// Starting the server (up to its first message; 0 over HTTP).
    pub spawn_us: u64,
    /// The handshake (`initialize` or `server/discover`).
    pub handshake_us: u64,
    /// Closing the session after the test reported (done off the critical path).
    #[serde(default)]
    pub close_us: u64,
}

/// The result of one test.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    /// Test id (explicit, else the slug of the name).
    pub id: String,
    /// Display name.
    pub name: String,
    /// How it ended.
    pub status: Outcome,
    /// Milliseconds from opening the session to the last step.
    pub duration_ms: u64,
    /// The steps that ran, in order.
    pub steps: Vec<StepResult>,
    /// The steps that did not run because an earlier one stopped the test (an unknown
    /// variable or a broken session in a test that goes on after failures, such as an
    /// mcp-tester script), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// Values published with `export`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub outputs: Map<String, Value>,
    /// Why it did not pass (the first failing step's failure, or why it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Box<Failure>>,
    /// The negotiated protocol version, when a session was opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Every message of the session, when the run keeps transcripts (`--transcript`; with
    /// `--html`, for the tests that did not pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TestTranscript>,
    /// For a data row: `{source, row, id, fingerprint}` (the test's `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<TestData>,
    /// For a data row: the name of the test the row belongs to (rows are grouped under it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_name: Option<String>,
    /// Where the test is written: its first step's location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// When the test and its session's phases ran (absent when no session was opened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// The last lines (at most 20) the server wrote on stderr during the test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// In a run that shares sessions, the session the test ran in (numbered from 1 in the
    /// order the run opened them); absent when the test had a session of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<u64>,
    /// How many times the test ran (absent: once); more than once when it was retried.
    #[serde(default, skip_serializing_if = "ran_once")]
    pub attempts: u32,
    /// The attempts before the one this result reports, oldest first (a retried test).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_attempts: Vec<Attempt>,
    /// The test is listed in the quarantine file: a failure of it does not fail the run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quarantined: bool,
    /// What the test's steps exercised, for coverage (not in reports: the run's coverage
    /// is).
    #[serde(skip)]
    pub exercised: crate::coverage::Exercised,
    /// Protocol rules the server broke during the test that did not decide its outcome (a
    /// second answer after the last request, progress for a token never sent, a wrong
    /// `Content-Type`, …), as the session recorded them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// A protocol rule broken during a test, recorded without deciding its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// The code of the rule (`MCP-PROTOCOL-004`, …).
    pub code: RunCode,
    /// What happened.
    pub message: String,
    /// Milliseconds since the session began.
    pub at_ms: u64,
}

/// A step that did not run: its name and where it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRun {
    /// Display name (for a script command, its line).
    pub name: String,
    /// Where it is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
}

/// The messages of a test's session, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestTranscript {
    /// The kept messages (the newest ones when the session exceeded its limit).
    pub entries: Vec<crate::transcript::Entry>,
    /// Older messages that were dropped.
    pub dropped: u64,
}

impl TestResult {
    /// Milliseconds of each step that talked to the server, in order (what a latency
    /// budget measures; local steps such as `Set`, `echo` and checks are left out).
    pub fn call_durations(&self) -> Vec<u64> {
        self.steps
            .iter()
            .filter(|s| s.is_call())
            .map(|s| s.duration_ms)
            .collect()
    }

    /// A test that did not run (skipped or blocked).
    pub fn not_run(id: &str, name: &str, status: Outcome, failure: Failure) -> TestResult {
        TestResult {
            id: id.into(),
            name: name.into(),
            status,
            duration_ms: 0,
            steps: Vec::new(),
            not_run: Vec::new(),
            outputs: Map::new(),
            failure: Some(Box::new(failure)),
            protocol_version: None,
            transcript: None,
            data: None,
            logical_name: None,
            source: None,
            timing: None,
            stderr: None,
            session: None,
            attempts: 0,
            previous_attempts: Vec::new(),
            quarantined: false,
            exercised: crate::coverage::Exercised::default(),
            warnings: Vec::new(),
        }
    }

    /// This result as an earlier attempt of a retried test.
    pub fn as_attempt(&self) -> Attempt {
        Attempt {
            status: self.status,
            duration_ms: self.duration_ms,
            failure: self.failure.as_deref().cloned(),
            session: self.session,
        }
    }
}

fn ran_once(n: &u32) -> bool {
    *n <= 1
}

/// The id a test is known by: `id`, else the slug of its name (§4.7).
pub fn test_id(test: &ir::Test) -> String {
    match &test.id {
        Some(id) => id.clone(),
        None => mcpr_compiler::names::slug(&test.name),
    }
}

impl Failure {
    /// Masks every secret of the failure in place.
    fn redact(&mut self, redactor: &Redactor) {
        let f = self;
        f.message = redactor.text(&f.message);
        for s in [
            &mut f.expected,
            &mut f.actual,
            &mut f.stderr_tail,
            &mut f.step,
        ]
        .into_iter()
        .flatten()
        {
            *s = redactor.text(s);
        }
        if let Some(m) = &mut f.last_message {
            m.text = redactor.text(&m.text);
        }
        for v in [&mut f.expected_value, &mut f.actual_value]
            .into_iter()
            .flatten()
        {
            redactor.value(v);
        }
    }
}

impl TestResult {
    /// A copy of the result fit for people: every secret masked, and the outputs named in
    /// `sensitive` replaced by the mask.
    pub fn redacted(&self, redactor: &Redactor, sensitive: &[String]) -> TestResult {
        let mut r = self.clone();
        if let Some(f) = &mut r.failure {
            f.redact(redactor);
        }
        for f in r
            .previous_attempts
            .iter_mut()
            .flat_map(|a| a.failure.as_mut())
        {
            f.redact(redactor);
        }
        for s in &mut r.steps {
            if let Some(f) = &mut s.failure {
                f.redact(redactor);
            }
            for v in [&mut s.response, &mut s.error].into_iter().flatten() {
                redactor.value(v);
            }
            if let Some(o) = &mut s.output {
                *o = redactor.text(o);
            }
        }
        if let Some(e) = &mut r.stderr {
            *e = redactor.text(e);
        }
        for w in &mut r.warnings {
            w.message = redactor.text(&w.message);
        }
        for e in r.transcript.iter_mut().flat_map(|t| t.entries.iter_mut()) {
            e.text = redactor.text(&e.text);
        }
        if let Some(d) = &mut r.data {
            d.redact(redactor);
        }
        for (k, v) in r.outputs.iter_mut() {
            if sensitive.contains(k) {
                *v = Value::String(MASK.into());
            } else {
                redactor.value(v);
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str) -> TestData {
        TestData::Row {
            source: "rows.csv".into(),
            row: 7,
            id: id.into(),
            fingerprint: "sha256:ab12".into(),
        }
    }

    #[test]
    fn a_row_is_reported_as_its_four_members_in_order() {
        let text = serde_json::to_string(&row("7")).unwrap();
        assert_eq!(
            text,
            r#"{"source":"rows.csv","row":7,"id":"7","fingerprint":"sha256:ab12"}"#
        );
        assert_eq!(serde_json::to_value(row("7")).unwrap(), row("7").to_value());
        // A report read back keeps the same JSON.
        let back: TestData = serde_json::from_str(&text).unwrap();
        assert_eq!(back, TestData::Json(row("7").to_value()));
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    #[test]
    fn a_row_is_masked_like_its_json_and_stays_shared_when_nothing_is_masked() {
        let mut redactor = Redactor::new();
        redactor.add("hunter2-secret");
        let mut plain = row("7");
        plain.redact(&redactor);
        assert_eq!(plain, row("7"), "nothing to mask: the row stays a row");

        let mut secret = row("hunter2-secret");
        let mut expected = row("hunter2-secret").to_value();
        redactor.value(&mut expected);
        secret.redact(&redactor);
        assert_eq!(secret, TestData::Json(expected.clone()));
        assert_ne!(expected["id"], "hunter2-secret");
    }
}
