//! The located syntax tree. Nodes keep byte spans; `ast_json` turns them into
//! UTF-16 line/column/offset positions for editors and `--emit ast`.

use crate::source::{SourceFile, Span};
use serde::Serialize;

/// A piece of text from the source with its semantic span (for a quoted
/// name, the text inside the quotes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Text {
    /// The text, unquoted.
    pub value: String,
    /// Where the text sits in the file.
    pub span: Span,
    /// Whether the source wrote it in quotes.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub quoted: bool,
}

impl Text {
    /// Text taken verbatim from the source.
    pub fn raw(value: &str, span: Span) -> Self {
        Text {
            value: value.to_string(),
            span,
            quoted: false,
        }
    }
}

/// A duration as written (`10 seconds`, `800ms`); validated after parsing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Duration {
    /// The number as written.
    pub number: String,
    /// The unit as written (may be empty when missing).
    pub unit: String,
    /// Milliseconds, when the number and unit are valid.
    pub ms: Option<u64>,
    /// Where the whole duration sits.
    pub span: Span,
}

/// A whole number as written; validated after parsing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Number {
    /// The number as written.
    pub text: String,
    /// The value, when the text is a valid integer.
    pub value: Option<i64>,
    /// Where it sits.
    pub span: Span,
}

/// The least level `Expect the server is lint clean [including …|only errors]` fails on.
pub use crate::lint_rules::Level as LintLevel;

/// What `List all …` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    /// `tools/list`
    Tools,
    /// `resources/list`
    Resources,
    /// `prompts/list`
    Prompts,
    /// `resources/templates/list`
    ResourceTemplates,
}

/// Comparison of an expectation or a row filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Compare {
    /// `equals` / `is`
    Equals,
    /// `does not equal`
    NotEquals,
    /// `contains`
    Contains,
    /// `does not contain`
    NotContains,
    /// `matches`
    Matches,
    /// `is one of`
    OneOf,
    /// `is greater than` (`is more than`)
    GreaterThan,
    /// `is less than` (`is fewer than`)
    LessThan,
    /// `is at least`
    AtLeast,
    /// `is at most`
    AtMost,
    /// `is between A and B` (both included)
    Between,
    /// `is empty`: a text, list or object without content
    Empty,
    /// `is not empty`
    NotEmpty,
}

/// JSON kinds for `is a …` and column types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// A JSON string.
    String,
    /// A JSON number.
    Number,
    /// A JSON boolean.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// JSON null.
    Null,
    /// A date (data columns only).
    Date,
    /// Decoded JSON (data columns only).
    Json,
}

/// A flow input: `a` (required) or `b=1` (optional with a default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowInput {
    /// Input name.
    pub name: Text,
    /// Default value text (YAML-typed at lowering), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Text>,
}

/// Sample modes of a data source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleMode {
    /// `Sample first N rows`
    First,
    /// `Sample last N rows`
    Last,
    /// `Sample every N rows`
    Every,
}

/// How an export aggregates rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Aggregate {
    /// `collecting a list`
    List,
    /// `collecting a map`
    Map,
}

/// A fault phrase below a step (`Drop the response`, …; docs/faults.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultPhrase {
    /// `Drop the response`
    Drop,
    /// `Delay the response by 2 seconds`
    Delay(Duration),
    /// `Disconnect after the request`
    Disconnect,
    /// `Duplicate the response`
    Duplicate,
    /// `Corrupt the response`
    Corrupt,
}

/// `Budget[ for "T"]: pP N unit[ over W calls]`, boxed in `Stmt` because it
/// is the largest statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// The test the budget applies to (all tests when absent).
    pub test: Option<Text>,
    /// The percentile (the number after `p`).
    pub percentile: Number,
    /// The latency limit.
    pub max: Duration,
    /// Sample window size.
    pub window: Option<Number>,
    /// Unit of the window (calls, runs, samples).
    pub window_unit: Option<Text>,
}

/// One recognised statement, with the parts the line spells out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "form", rename_all = "camelCase")]
#[allow(missing_docs)]
pub enum Stmt {
    // ---- document level ----
    VersionHeader,
    Suite {
        name: Text,
    },
    Server {
        command: Text,
    },
    McpUrl {
        url: Text,
    },
    /// `Server from the command line`: the suite names no server; `mcpr run` takes it from
    /// `--server`, `--url` or `--profile`.
    ServerFromCommandLine,
    ServerOptions,
    NamedServer {
        name: Text,
        connection: Text,
    },
    ServerOptionsFor {
        name: Text,
    },
    CompareTarget {
        name: Text,
        connection: Text,
    },
    TargetOptionsFor {
        name: Text,
    },
    /// `Minimum coverage: 80%`.
    MinimumCoverage {
        percent: u32,
    },
    DefaultTimeout {
        duration: Duration,
    },
    /// `Default retries: 2`: how many times a failing test is run again, suite-wide.
    DefaultRetries {
        count: Number,
    },
    /// `Shutdown grace: 200 ms`: how long a server may take to exit after its stdin closes.
    ShutdownGrace {
        duration: Duration,
    },
    /// `Session: shared` or `Session: per test`.
    SessionSetting {
        shared: bool,
    },
    Budget(Box<Budget>),
    Redact {
        items: Vec<Text>,
    },
    Snapshots {
        file: Text,
    },
    IgnoreSnapshotPaths {
        paths: Vec<Text>,
    },
    ClientBehavior,
    /// `Extensions:` + YAML block (functions, permissions, allowlist, unsafeLegacy).
    Extensions,
    Functions {
        paths: Vec<Text>,
    },
    ImportFlows {
        path: Text,
    },
    FlowHeader {
        name: Text,
    },
    DataSourceHeader {
        name: Text,
    },
    TestHeader {
        name: Text,
    },
    // ---- flow properties ----
    Inputs {
        inputs: Vec<FlowInput>,
    },
    Outputs {
        value: Option<Text>,
    },
    // ---- test properties ----
    Id {
        id: Text,
    },
    OnServer {
        name: Text,
    },
    Skip {
        reason: Option<Text>,
    },
    Variables,
    /// `Continue on failure`: a failing step does not stop the test.
    ContinueOnFailure,
    /// `Isolated session`: the test opens a session of its own in a suite that shares them.
    IsolatedSession,
    /// `Retries: 2`: how many times the test is run again when it fails or errors.
    Retries {
        count: Number,
    },
    /// `Logical name: NAME`: the name the rows of a data-driven test are grouped under.
    LogicalName {
        name: Text,
    },
    /// `Data row:` + YAML block: the data row an already expanded test was made from.
    DataRow,
    Require {
        capabilities: Vec<Text>,
    },
    RequireProtocol {
        versions: Vec<Text>,
    },
    DependsOn {
        ids: Vec<Text>,
    },
    // ---- sections ----
    Setup,
    Steps,
    Cleanup,
    // ---- actions ----
    CallTool {
        name: Text,
        with: bool,
    },
    CallToolWithProgress {
        name: Text,
        cancel_after: Option<Duration>,
        with: bool,
    },
    /// `Call tool "NAME" with values 2, 3, b=10`: text values typed by the tool's schema
    /// (the rest of the line, split by [`crate::syntax::grammar::split_values`]).
    CallToolWithValues {
        name: Text,
        values: Text,
    },
    ReadResource {
        uri: Text,
    },
    GetPrompt {
        name: Text,
        with: bool,
    },
    Send {
        method: Text,
        with: bool,
    },
    Subscribe {
        uri: Text,
    },
    Unsubscribe {
        uri: Text,
    },
    WaitForNotification {
        method: Text,
        /// `where "PATH" equals VALUE` conditions on the params: (dot path, value as
        /// written; a quoted value is text, an unquoted one is typed like YAML).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        filter: Vec<(Text, Text)>,
        within: Option<Duration>,
    },
    SetLogLevel {
        level: Text,
    },
    ListAll {
        what: ListKind,
    },
    /// `Expect the server is lint clean [including warnings|including info|only errors]
    /// [ignoring CODES]`.
    ExpectLintClean {
        including: Option<LintLevel>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        ignoring: Vec<Text>,
    },
    /// `Expect the tools match snapshot "FILE" [allowing compatible changes]`.
    ExpectToolsSnapshot {
        file: Text,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        allow_compatible: bool,
    },
    GetTask {
        task: Text,
    },
    ListTasks,
    /// `Reconnect`: a new session to the same server.
    Reconnect,
    CancelTask {
        task: Text,
    },
    RespondToElicitation {
        action: Text,
        with: bool,
    },
    RespondToSampling {
        text: Text,
    },
    SetUsing {
        variable: Text,
        function: Text,
        with: bool,
    },
    UseFlow {
        name: Text,
        with: bool,
    },
    /// `Run step with:` + a YAML block holding one step of the suite model.
    RunStep,
    ForEachRow,
    ForEachRowIn {
        file: Text,
        sheet: Option<Text>,
    },
    ForEachRowFrom {
        source: Text,
    },
    // ---- expectations ----
    ExpectSuccess,
    ExpectError,
    ExpectErrorCode {
        code: Number,
    },
    ExpectErrorMessage {
        compare: Compare,
        value: Text,
    },
    ExpectFinishWithin {
        duration: Duration,
    },
    ExpectValue {
        path: Text,
        compare: Compare,
        value: Text,
    },
    /// `Expect "PATH" exists`, or with `absent` `Expect "PATH" does not exist`.
    ExpectExists {
        path: Text,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        absent: bool,
    },
    ExpectLength {
        path: Text,
        count: Number,
        noun: Text,
    },
    ExpectType {
        path: Text,
        kind: ValueType,
    },
    ExpectMatchesSchema {
        path: Text,
    },
    ExpectSnapshot {
        path: Text,
        name: Text,
        ignoring: Vec<Text>,
    },
    // ---- modifiers ----
    Save {
        path: Text,
        variable: Text,
    },
    Export {
        path: Text,
        name: Text,
        aggregate: Option<Aggregate>,
        sensitive: bool,
    },
    WaitUpTo {
        duration: Duration,
    },
    /// `Drop the response`, `Delay the response by 2 seconds`, … after a step.
    Fault {
        fault: FaultPhrase,
    },
    // ---- data source phrases ----
    From {
        provider: Text,
        file: Text,
        sheet: Option<Text>,
        /// The dot path of the rows inside a JSON or YAML document (`at "data.items"`).
        at: Option<Text>,
    },
    FromRest {
        url: Text,
        at: Option<Text>,
    },
    Column {
        name: Text,
        kind: ValueType,
        required: bool,
        one_of: Vec<Text>,
    },
    Derive {
        name: Text,
        template: Text,
    },
    KeepRowsWhere {
        column: Text,
        compare: Compare,
        value: Text,
    },
    Sample {
        mode: SampleMode,
        count: Number,
    },
    SampleSeeded {
        count: Number,
        seed: Number,
    },
    Cache,
    // ---- not statements ----
    Comment,
    Error,
}

/// What a line declares, for editors (outline, colouring) and placement
/// checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DeclKind {
    /// `MCP Test 1`
    Header,
    /// Suite name, targets and other document settings.
    Setting,
    /// `Import flows from …`
    Import,
    /// `Test:`, `Flow:` or `Data source:` block header.
    BlockHeader,
    /// `Inputs:` / `Outputs:` in a flow.
    FlowProperty,
    /// `Id:`, `Skip`, `Depends on:` … in a test.
    TestProperty,
    /// `Setup:` / `Steps:` / `Cleanup:`
    Section,
    /// A step: calls, reads, sends, native actions, `Use flow`.
    Action,
    /// `Set … using …` (a step without a result to check).
    Utility,
    /// `For each row …`
    Iteration,
    /// `Expect …` / `Then …`
    Expectation,
    /// `Save`, `Export`, `Wait up to`, a fault phrase after a step.
    Modifier,
    /// A phrase inside a `Data source:` block.
    DataPhrase,
    /// A full-line comment.
    Comment,
    /// A line that could not be recognised.
    Error,
}

impl Stmt {
    /// The declaration kind of this statement.
    pub fn decl_kind(&self) -> DeclKind {
        use Stmt::*;
        match self {
            VersionHeader => DeclKind::Header,
            Suite { .. }
            | Server { .. }
            | McpUrl { .. }
            | ServerFromCommandLine
            | ServerOptions
            | NamedServer { .. }
            | ServerOptionsFor { .. }
            | CompareTarget { .. }
            | TargetOptionsFor { .. }
            | DefaultTimeout { .. }
            | ShutdownGrace { .. }
            | DefaultRetries { .. }
            | SessionSetting { .. }
            | MinimumCoverage { .. }
            | Budget(_)
            | Redact { .. }
            | Snapshots { .. }
            | IgnoreSnapshotPaths { .. }
            | ClientBehavior
            | Extensions
            | Functions { .. } => DeclKind::Setting,
            ImportFlows { .. } => DeclKind::Import,
            FlowHeader { .. } | DataSourceHeader { .. } | TestHeader { .. } => {
                DeclKind::BlockHeader
            }
            Inputs { .. } | Outputs { .. } => DeclKind::FlowProperty,
            Id { .. }
            | OnServer { .. }
            | Skip { .. }
            | Variables
            | ContinueOnFailure
            | IsolatedSession
            | Retries { .. }
            | LogicalName { .. }
            | DataRow
            | Require { .. }
            | RequireProtocol { .. }
            | DependsOn { .. } => DeclKind::TestProperty,
            Setup | Steps | Cleanup => DeclKind::Section,
            CallTool { .. }
            | CallToolWithProgress { .. }
            | CallToolWithValues { .. }
            | ReadResource { .. }
            | GetPrompt { .. }
            | Send { .. }
            | Subscribe { .. }
            | Unsubscribe { .. }
            | WaitForNotification { .. }
            | SetLogLevel { .. }
            | ListAll { .. }
            | ExpectLintClean { .. }
            | ExpectToolsSnapshot { .. }
            | GetTask { .. }
            | ListTasks
            | Reconnect
            | CancelTask { .. }
            | RespondToElicitation { .. }
            | RespondToSampling { .. }
            | UseFlow { .. }
            | RunStep => DeclKind::Action,
            SetUsing { .. } => DeclKind::Utility,
            ForEachRow | ForEachRowIn { .. } | ForEachRowFrom { .. } => DeclKind::Iteration,
            ExpectSuccess
            | ExpectError
            | ExpectErrorCode { .. }
            | ExpectErrorMessage { .. }
            | ExpectFinishWithin { .. }
            | ExpectValue { .. }
            | ExpectExists { .. }
            | ExpectLength { .. }
            | ExpectType { .. }
            | ExpectMatchesSchema { .. }
            | ExpectSnapshot { .. } => DeclKind::Expectation,
            Save { .. } | Export { .. } | WaitUpTo { .. } | Fault { .. } => DeclKind::Modifier,
            From { .. }
            | FromRest { .. }
            | Column { .. }
            | Derive { .. }
            | KeepRowsWhere { .. }
            | Sample { .. }
            | SampleSeeded { .. }
            | Cache => DeclKind::DataPhrase,
            Comment => DeclKind::Comment,
            Error => DeclKind::Error,
        }
    }

    /// Whether the line ends in `with:` or is a block keyword, so that the
    /// deeper-indented lines after it form a YAML block.
    pub fn opens_yaml_block(&self) -> bool {
        use Stmt::*;
        match self {
            CallTool { with, .. }
            | CallToolWithProgress { with, .. }
            | GetPrompt { with, .. }
            | Send { with, .. }
            | RespondToElicitation { with, .. }
            | SetUsing { with, .. }
            | UseFlow { with, .. } => *with,
            ServerOptions
            | ServerOptionsFor { .. }
            | TargetOptionsFor { .. }
            | ClientBehavior
            | Extensions
            | RunStep
            | Variables
            | DataRow
            | ExpectMatchesSchema { .. } => true,
            _ => false,
        }
    }

    /// Whether an empty block after this opener is acceptable (`Use flow … with:`
    /// with no arguments is an empty mapping).
    pub fn allows_empty_block(&self) -> bool {
        matches!(self, Stmt::UseFlow { .. })
    }

    /// The text that names what the statement is about (tool name, URI,
    /// path…), used as the node's semantic span.
    pub fn semantic(&self) -> Option<&Text> {
        use Stmt::*;
        match self {
            Suite { name }
            | NamedServer { name, .. }
            | ServerOptionsFor { name }
            | CompareTarget { name, .. }
            | TargetOptionsFor { name }
            | FlowHeader { name }
            | DataSourceHeader { name }
            | TestHeader { name }
            | OnServer { name }
            | LogicalName { name }
            | CallTool { name, .. }
            | CallToolWithProgress { name, .. }
            | CallToolWithValues { name, .. }
            | GetPrompt { name, .. }
            | UseFlow { name, .. } => Some(name),
            Server { command } => Some(command),
            McpUrl { url } | FromRest { url, .. } => Some(url),
            Snapshots { file } | From { file, .. } | ForEachRowIn { file, .. } => Some(file),
            ImportFlows { path } => Some(path),
            Id { id } => Some(id),
            Skip { reason } => reason.as_ref(),
            ReadResource { uri } | Subscribe { uri } | Unsubscribe { uri } => Some(uri),
            Send { method, .. } | WaitForNotification { method, .. } => Some(method),
            SetLogLevel { level } => Some(level),
            GetTask { task } | CancelTask { task } => Some(task),
            RespondToElicitation { action, .. } => Some(action),
            RespondToSampling { text } => Some(text),
            SetUsing { variable, .. } => Some(variable),
            ForEachRowFrom { source } => Some(source),
            ExpectErrorMessage { value, .. } => Some(value),
            ExpectValue { path, .. }
            | ExpectExists { path, .. }
            | ExpectLength { path, .. }
            | ExpectType { path, .. }
            | ExpectMatchesSchema { path }
            | ExpectSnapshot { path, .. }
            | Save { path, .. }
            | Export { path, .. } => Some(path),
            Column { name, .. } | Derive { name, .. } => Some(name),
            KeepRowsWhere { column, .. } => Some(column),
            _ => None,
        }
    }
}

/// One value of `Call tool "NAME" with values …`: `VALUE`, or `NAME=VALUE` for the
/// argument `NAME`. The value is text (quotes removed); the tool's schema types it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolValue {
    /// The argument it gives, when written `NAME=VALUE`.
    pub name: Option<Text>,
    /// The value as text.
    pub value: Text,
}

/// An indented YAML block after a `with:` line or a block keyword.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct YamlBlock {
    /// Bytes from the first to the last line of the block.
    pub span: Span,
    /// The parsed value; `None` when the YAML was invalid (a diagnostic was
    /// reported).
    pub value: Option<serde_json::Value>,
    /// The block alone holds more values than the file may (MCPLANG609 is reported once,
    /// for the file, where the budget is crossed).
    #[serde(skip)]
    pub over_budget: bool,
}

impl YamlBlock {
    /// A block over `span` holding `value`.
    pub fn new(span: Span, value: Option<serde_json::Value>) -> YamlBlock {
        YamlBlock {
            span,
            value,
            over_budget: false,
        }
    }
}

/// One cell of an inline table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Trimmed cell text (YAML-typed at lowering).
    pub text: String,
    /// Where the cell text sits.
    pub span: Span,
}

/// An inline `| a | b |` table after `For each row:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Table {
    /// Header cells (column names).
    pub header: Vec<Cell>,
    /// Data rows.
    pub rows: Vec<Vec<Cell>>,
    /// Bytes from the first to the last row.
    pub span: Span,
}

/// A node of the located tree: one statement line (with its YAML block or
/// table), a comment, an error line, or a block with its body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// The statement recognised on the line.
    pub stmt: Stmt,
    /// The trimmed line (first non-space character to end of line).
    pub span: Span,
    /// Number of leading spaces.
    pub indent: u32,
    /// YAML block that belongs to this line, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yaml: Option<Box<YamlBlock>>,
    /// Inline table that belongs to this line, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Box<Table>>,
    /// Body of a `Test:`, `Flow:` or `Data source:` block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

impl Node {
    /// The declaration kind of the node.
    pub fn decl_kind(&self) -> DeclKind {
        self.stmt.decl_kind()
    }

    /// Iterates this node and every node below it, depth first.
    pub fn walk(&self) -> Walk<'_> {
        Walk { stack: vec![self] }
    }
}

/// Depth-first iterator over a node and its descendants.
pub struct Walk<'n> {
    stack: Vec<&'n Node>,
}

impl<'n> Iterator for Walk<'n> {
    type Item = &'n Node;

    fn next(&mut self) -> Option<&'n Node> {
        let node = self.stack.pop()?;
        self.stack.extend(node.children.iter().rev());
        Some(node)
    }
}

/// A parsed `.mcpr` file: its top-level nodes in source order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// Top-level nodes (settings, block headers with bodies, comments, errors).
    pub nodes: Vec<Node>,
}

impl Document {
    /// Every node of the document, depth first.
    pub fn walk(&self) -> Walk<'_> {
        Walk {
            stack: self.nodes.iter().rev().collect(),
        }
    }
}

/// Renders the tree as JSON with every span given as UTF-16 line, column and
/// offset (plus the byte range), as editors consume it.
pub fn ast_json(doc: &Document, file: &SourceFile) -> serde_json::Value {
    let nodes: Vec<_> = doc.nodes.iter().map(|n| node_json(n, file)).collect();
    serde_json::json!({ "file": file.path(), "nodes": nodes })
}

/// One node as JSON: form, declaration kind, located spans, fields, body.
fn node_json(node: &Node, file: &SourceFile) -> serde_json::Value {
    use serde_json::Value;
    let mut fields = serde_json::to_value(&node.stmt).expect("statements serialise");
    let form = fields
        .as_object_mut()
        .and_then(|m| m.remove("form"))
        .unwrap_or(Value::Null);
    locate(&mut fields, file);
    let mut out = serde_json::Map::new();
    out.insert("form".into(), form);
    out.insert(
        "declKind".into(),
        serde_json::to_value(node.decl_kind()).expect("kind"),
    );
    out.insert("span".into(), located_range(node.span, file));
    out.insert(
        "semanticSpan".into(),
        node.stmt
            .semantic()
            .map_or(Value::Null, |t| located_range(t.span, file)),
    );
    out.insert("indent".into(), node.indent.into());
    if fields.as_object().is_some_and(|m| !m.is_empty()) {
        out.insert("fields".into(), fields);
    }
    if let Some(yaml) = &node.yaml {
        out.insert(
            "yaml".into(),
            serde_json::json!({ "span": located_range(yaml.span, file), "value": yaml.value }),
        );
    }
    if let Some(table) = &node.table {
        let mut t = serde_json::to_value(table).expect("tables serialise");
        locate(&mut t, file);
        out.insert("table".into(), t);
    }
    if !node.children.is_empty() {
        let children: Vec<_> = node.children.iter().map(|c| node_json(c, file)).collect();
        out.insert("children".into(), Value::Array(children));
    }
    Value::Object(out)
}

/// Replaces every `{start, end}` byte span with a located range.
fn locate(value: &mut serde_json::Value, file: &SourceFile) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let is_span = map.len() == 2
                && map.get("start").is_some_and(Value::is_u64)
                && map.get("end").is_some_and(Value::is_u64);
            if is_span {
                let s = map["start"].as_u64().unwrap_or(0) as usize;
                let e = map["end"].as_u64().unwrap_or(0) as usize;
                *value = located_range(Span::new(s, e.max(s)), file);
                return;
            }
            for v in map.values_mut() {
                locate(v, file);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| locate(v, file)),
        _ => {}
    }
}

/// A span as `{start: {line, column, offset}, end: {…}, bytes: [s, e]}`.
pub fn located_range(span: Span, file: &SourceFile) -> serde_json::Value {
    serde_json::json!({
        "start": file.position(span.start as usize),
        "end": file.position(span.end as usize),
        "bytes": [span.start, span.end],
    })
}
