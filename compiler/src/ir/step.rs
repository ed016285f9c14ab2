//! Steps: the four kinds of action, their common settings, and where they came from.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

use super::assert::Assert;
use super::map::OrderedMap;
use super::native::NativeStep;
use super::present;

/// One step of a test: exactly one action plus the settings every step shares.
///
/// In JSON the action is a member named after its kind (`tool`, `request`, `set` or `native`)
/// next to the common members; a step with none or several of them is rejected.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "StepRepr")]
pub struct Step {
    /// Display name of the step.
    pub name: Option<String>,
    /// The action the step performs.
    pub kind: StepKind,
    /// Section of the test the step belongs to.
    pub phase: Option<Phase>,
    /// Run the step even after an earlier step failed.
    pub always: Option<bool>,
    /// Expectations on the outcome.
    pub assert: Option<Box<Assert>>,
    /// Values saved into test variables: variable name → result path.
    pub capture: Option<OrderedMap<String>>,
    /// Values published as test outputs: output name → export rule.
    pub export: Option<OrderedMap<Export>>,
    /// Deadline of the step's request in milliseconds (1–600000).
    pub timeout_ms: Option<u64>,
    /// A fault injected between the runner and the server on the step's request (mcpr
    /// addition; docs/faults.md).
    pub fault: Option<Fault>,
    /// Position of the statement that produced the step (mcpr addition).
    pub source: Option<SourceLocation>,
    /// Flow calls the step was expanded from, outermost first (mcpr addition).
    pub flow: Vec<FlowFrame>,
}

/// A value of a step the schema leaves open: any object, or any JSON value.
enum Open<'s> {
    Object(&'s mut Map<String, Value>),
    Any(&'s mut Value),
}

impl Step {
    /// Removes what only `.mcpr` sources supply: the step's and its assertions' positions
    /// and the flow frames.
    pub fn clear_locations(&mut self) {
        self.flow.clear();
        self.each_source(|source| *source = None);
    }

    /// Visits the step's position and its assertions' positions, always in the same order
    /// (the step's, its `assert`'s, then each JSON assertion's).
    pub fn each_source(&mut self, mut f: impl FnMut(&mut Option<SourceLocation>)) {
        f(&mut self.source);
        let Some(a) = self.assert.as_mut() else {
            return;
        };
        f(&mut a.source);
        match a.json.as_mut() {
            Some(super::JsonAssertions::List(list)) => {
                list.iter_mut().for_each(|a| f(&mut a.source))
            }
            Some(super::JsonAssertions::One(one)) => f(&mut one.source),
            None => {}
        }
    }

    /// Takes out the value the schema leaves open in this step, if any (a tool's or a
    /// function's arguments: any object; a request's parameters: any JSON value), leaving
    /// the least value of its kind in its place, which the schema accepts as it accepts any
    /// other. [`Step::put_open`] puts it back. A test is judged without them: the lean
    /// document of a block of half a million arguments was as large as the block itself.
    pub fn take_open(&mut self) -> Option<Value> {
        match self.open()? {
            Open::Object(m) => Some(Value::Object(std::mem::take(m))),
            Open::Any(v) => Some(std::mem::take(v)),
        }
    }

    /// Puts back what [`Step::take_open`] took.
    pub fn put_open(&mut self, value: Option<Value>) {
        match (self.open(), value) {
            (Some(Open::Object(m)), Some(Value::Object(taken))) => *m = taken,
            (Some(Open::Any(v)), Some(taken)) => *v = taken,
            _ => {}
        }
    }

    /// The value the schema leaves open in this step.
    fn open(&mut self) -> Option<Open<'_>> {
        match &mut self.kind {
            StepKind::Tool(t) => t.arguments.as_mut().map(Open::Object),
            StepKind::Set(s) => s.arguments.as_mut().map(Open::Object),
            StepKind::Request(r) => r.params.as_mut().map(Open::Any),
            StepKind::Native(n) => match n.as_mut() {
                NativeStep::Request(r) => r.params.as_mut().map(Open::Any),
                _ => None,
            },
        }
    }

    /// A step performing `kind` with every other setting left out.
    pub fn new(kind: StepKind) -> Self {
        Self {
            name: None,
            kind,
            phase: None,
            always: None,
            assert: None,
            capture: None,
            export: None,
            timeout_ms: None,
            fault: None,
            source: None,
            flow: Vec::new(),
        }
    }
}

/// A fault injected on a step's request (`fault:`): what happens to the server's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fault {
    /// What the fault does.
    pub kind: FaultKind,
    /// For `delay`: how long the answer is held, in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
}

/// The kinds of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FaultKind {
    /// The answer never reaches the runner: the request times out.
    Drop,
    /// The answer reaches the runner `delayMs` later.
    Delay,
    /// The runner closes the connection right after sending the request.
    Disconnect,
    /// The answer arrives twice.
    Duplicate,
    /// The answer arrives cut in half (not JSON).
    Corrupt,
}
every_variant!(FaultKind: Drop, Delay, Disconnect, Duplicate, Corrupt);

/// The action of a step; on its own it serialises as `{"tool": {…}}` and so on.
// Plain data matched by value everywhere; boxing the native variant would only complicate
// every producer and consumer of the IR for a few hundred bytes per step.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// Call a tool (`tool`).
    Tool(ToolStep),
    /// Send a JSON-RPC request (`request`).
    Request(RequestStep),
    /// Compute a variable with a utility function (`set`).
    Set(SetStep),
    /// An MCP-specific action the runner performs itself (`native`). Boxed: it is three
    /// times the size of the other kinds, and every step would carry that size.
    Native(Box<NativeStep>),
}

impl StepKind {
    /// A `native` step.
    pub fn native(n: NativeStep) -> StepKind {
        StepKind::Native(Box::new(n))
    }
}

/// A `tools/call` of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolStep {
    /// Tool name.
    pub name: String,
    /// Tool arguments (values are templates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Values without a name (templates), given at run time to the input-schema properties
    /// that `arguments` does not name, in alphabetical order of the property names (mcpr
    /// addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positional: Option<Vec<Value>>,
    /// Check the arguments against the tool's input schema at run time: a name the schema
    /// lacks, or more positional values than free properties, fails the step with the list of
    /// valid names, and string values are converted to the type the schema gives the property
    /// (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coerce: Option<bool>,
    /// Run the call as a task (tasks extension): `run` polls it to the end and yields its
    /// result, `start` yields only the task handle (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMode>,
}

impl ToolStep {
    /// A call of `name` with every other setting left out.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: None,
            positional: None,
            coerce: None,
            task: None,
        }
    }
}

/// How a tool call runs as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskMode {
    /// Start the task and poll it until it completes, fails or is cancelled.
    Run,
    /// Start the task and yield its handle (`taskId`, `status`).
    Start,
}
every_variant!(TaskMode: Run, Start);

/// A plain JSON-RPC request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestStep {
    /// JSON-RPC method, e.g. `resources/read`.
    pub method: String,
    /// Request parameters, any JSON value.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
}

/// A utility-function call whose result is stored in a variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetStep {
    /// Variable that receives the result.
    pub variable: String,
    /// Built-in or custom function name.
    pub function: String,
    /// Function arguments (values are templates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
}

/// Section of a test a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Preparation before the steps proper.
    Setup,
    /// The steps proper.
    Test,
    /// Tidying up; runs even after a failure.
    Cleanup,
}
every_variant!(Phase: Setup, Test, Cleanup);

/// How a value is published as a test output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Export {
    /// Result path of the value (must start with `$`).
    pub path: String,
    /// How values of several data rows are combined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    /// Whether the value is a secret to keep out of reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<bool>,
}

/// How exported values of a data-driven test's rows are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Aggregate {
    /// One value.
    Single,
    /// A list in row order.
    List,
    /// A map keyed by row id.
    Map,
}
every_variant!(Aggregate: Single, List, Map);

/// A position in a source file (mcpr addition).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceLocation {
    /// Path of the file as the user named it (relative to where mcpr was started); shared by
    /// the locations of one file's steps rather than copied into each.
    pub file: Arc<str>,
    /// Line number, starting at 1.
    pub line: u32,
    /// Column number in characters, starting at 1.
    pub column: u32,
}

impl SourceLocation {
    /// A location in `file` at `line` and `column` (both 1-based).
    pub fn new(file: impl Into<Arc<str>>, line: u32, column: u32) -> Self {
        Self {
            file: file.into(),
            line,
            column,
        }
    }
}

/// One flow call a step was expanded from (mcpr addition).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlowFrame {
    /// Name of the flow.
    pub name: String,
    /// Position of the `Use flow` line.
    pub call_site: SourceLocation,
    /// Variable prefix given to this call, e.g. `flow0`.
    pub prefix: String,
}

/// The JSON shape of a step, with the action kinds as separate optional members, as it is
/// read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StepRepr {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool: Option<ToolStep>,
    #[serde(default)]
    request: Option<RequestStep>,
    #[serde(default)]
    native: Option<NativeStep>,
    #[serde(default)]
    set: Option<SetStep>,
    #[serde(default)]
    phase: Option<Phase>,
    #[serde(default)]
    always: Option<bool>,
    #[serde(default)]
    assert: Option<Assert>,
    #[serde(default)]
    capture: Option<OrderedMap<String>>,
    #[serde(default)]
    export: Option<OrderedMap<Export>>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    fault: Option<Fault>,
    #[serde(default)]
    source: Option<SourceLocation>,
    #[serde(default)]
    flow: Vec<FlowFrame>,
}

impl TryFrom<StepRepr> for Step {
    type Error = String;

    fn try_from(repr: StepRepr) -> Result<Self, String> {
        let mut kinds = Vec::with_capacity(1);
        if let Some(tool) = repr.tool {
            kinds.push(("tool", StepKind::Tool(tool)));
        }
        if let Some(request) = repr.request {
            kinds.push(("request", StepKind::Request(request)));
        }
        if let Some(native) = repr.native {
            kinds.push(("native", StepKind::native(native)));
        }
        if let Some(set) = repr.set {
            kinds.push(("set", StepKind::Set(set)));
        }
        if kinds.len() > 1 {
            let names: Vec<&str> = kinds.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "a step has exactly one of `tool`, `request`, `set` or `native`, found {}",
                names.join(" and ")
            ));
        }
        let Some((_, kind)) = kinds.pop() else {
            return Err(
                "a step needs one of `tool`, `request`, `set` or `native`, found none".to_owned(),
            );
        };
        Ok(Self {
            name: repr.name,
            kind,
            phase: repr.phase,
            always: repr.always,
            assert: repr.assert.map(Box::new),
            capture: repr.capture,
            export: repr.export,
            timeout_ms: repr.timeout_ms,
            fault: repr.fault,
            source: repr.source,
            flow: repr.flow,
        })
    }
}

/// The JSON shape of a step as it is written: [`StepRepr`] borrowing from the step, so a
/// step is serialised without being copied (`check` serialises every lowered test to judge
/// it against the schema).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a ToolStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<&'a RequestStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    native: Option<&'a NativeStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    set: Option<&'a SetStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<&'a Phase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    always: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    assert: Option<&'a Assert>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capture: Option<&'a OrderedMap<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    export: Option<&'a OrderedMap<Export>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<&'a Fault>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a SourceLocation>,
    #[serde(skip_serializing_if = "<[FlowFrame]>::is_empty")]
    flow: &'a [FlowFrame],
}

impl Serialize for Step {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = StepOut {
            name: self.name.as_ref(),
            tool: None,
            request: None,
            native: None,
            set: None,
            phase: self.phase.as_ref(),
            always: self.always,
            assert: self.assert.as_deref(),
            capture: self.capture.as_ref(),
            export: self.export.as_ref(),
            timeout_ms: self.timeout_ms,
            fault: self.fault.as_ref(),
            source: self.source.as_ref(),
            flow: &self.flow,
        };
        match &self.kind {
            StepKind::Tool(tool) => out.tool = Some(tool),
            StepKind::Request(request) => out.request = Some(request),
            StepKind::Set(set) => out.set = Some(set),
            StepKind::Native(native) => out.native = Some(native),
        }
        out.serialize(serializer)
    }
}
