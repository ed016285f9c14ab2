//! The statement table: every statement form of the language, once. Each row gives the
//! grammar rule that parses the form, the lower-cased first words a line of the form can
//! start with (the grammar tries a line only against the rules of its first word), the usage
//! shown when such a line is malformed, and the keyword phrases that open the form, aliases
//! included, with the usage suggested when a line that matches no form is closest to one of
//! them ("did you mean").
//!
//! The grammar ([`super::grammar::Grammar::new`]) and the suggestions ([`super::vocab`]) are
//! both built from this table, and `grammar/mcpr.ebnf` must have a rule of the same name for
//! every rule named here (a conformance test checks it).
//!
//! Order matters in two ways. Within the rules of one first word, a line is tried in table
//! order (the most common form first). Among opening phrases of the same number of words,
//! the first of two equally close phrases is the one suggested.

use super::grammar::actions::*;
use super::grammar::data::*;
use super::grammar::document::*;
use super::grammar::{Extra, P};
use super::tree::Stmt;

/// The "did you mean" vocabulary a form's opening phrases belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vocabulary {
    /// Statements of the document level, of tests and of flows.
    Statements,
    /// Phrases of a phrase-mode `Data source:` block.
    DataPhrases,
}

/// One statement form: a row of [`STATEMENTS`].
#[derive(Debug, Clone, Copy)]
pub struct Statement {
    /// The form.
    pub form: Form,
    /// Name of the grammar rule that parses it (a function of [`super::grammar`] and a rule
    /// of `grammar/mcpr.ebnf`). Two forms may share a rule (`Id:` and `Test ID:`).
    pub rule: &'static str,
    /// Lower-cased first words a line of the form can start with.
    pub first_words: &'static [&'static str],
    /// How the form is written, shown when a line starting like it is malformed.
    pub usage: &'static str,
    /// Opening keyword phrases (lower case, aliases included), each with the usage suggested
    /// for a line that matches no form but starts close to the phrase.
    pub openings: &'static [(&'static str, &'static str)],
    /// Which vocabulary the openings belong to.
    pub vocabulary: Vocabulary,
}

/// The version header line. It is recognised before the grammar runs (it must read exactly
/// `MCP Test 1`), so it has no rule; its phrase leads the statement vocabulary.
pub const VERSION_HEADER: (&str, &str) = ("mcp test 1", "MCP Test 1");

/// Declares the forms: the [`Form`] enum, the rule of each form and [`STATEMENTS`], all
/// from one list of rows.
macro_rules! statements {
    ($src:ident => $(
        $form:ident {
            rule: $rule:ident($($arg:ident)?),
            first: [$($first:literal),+ $(,)?],
            usage: $usage:literal,
            opens: [$($phrase:literal => $shown:literal),* $(,)?],
            vocabulary: $vocabulary:ident $(,)?
        }
    )*) => {
        /// A statement form of the language (a row of [`STATEMENTS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Form {
            $(
                #[doc = $usage]
                $form,
            )*
        }

        impl Form {
            /// The grammar rule of the form, built for the parser extra `E` over a file whose
            /// text is `src`.
            pub(super) fn rule<'a, 's: 'a, E: Extra<'a, 's>>(self, $src: &'s str) -> P<'a, 's, Stmt, E> {
                match self {
                    $(Form::$form => $rule($($arg)?),)*
                }
            }
        }

        /// Every statement form of the language, in the order described in the module
        /// documentation.
        pub const STATEMENTS: &[Statement] = &[$(
            Statement {
                form: Form::$form,
                rule: stringify!($rule),
                first_words: &[$($first),+],
                usage: $usage,
                openings: &[$(($phrase, $shown)),*],
                vocabulary: Vocabulary::$vocabulary,
            },
        )*];
    };
}

statements! { src =>
    // The document level: the suite, its servers and settings, imports, block headers.
    Suite {
        rule: suite(src),
        first: ["suite"],
        usage: "Suite: NAME",
        opens: [
            "suite:" => "Suite: NAME",
        ],
        vocabulary: Statements,
    }
    Server {
        rule: server(src),
        first: ["server"],
        usage: "Server: COMMAND ARGS…",
        opens: [
            "server:" => "Server: COMMAND ARGS…",
        ],
        vocabulary: Statements,
    }
    ServerFromCommandLine {
        rule: server_from_command_line(),
        first: ["server"],
        usage: "Server from the command line",
        opens: [
            "server from the command line" => "Server from the command line",
        ],
        vocabulary: Statements,
    }
    McpUrl {
        rule: mcp_url(src),
        first: ["mcp", "connect"],
        usage: "MCP URL: URL",
        opens: [
            "mcp url:" => "MCP URL: URL",
            "connect to:" => "Connect to: URL",
        ],
        vocabulary: Statements,
    }
    ServerOptions {
        rule: server_options(),
        first: ["server"],
        usage: "Server options:",
        opens: [
            "server options:" => "Server options:",
        ],
        vocabulary: Statements,
    }
    NamedServer {
        rule: named_server(src),
        first: ["named"],
        usage: "Named server \"NAME\": COMMAND OR URL",
        opens: [
            "named server" => "Named server \"NAME\": COMMAND OR URL",
        ],
        vocabulary: Statements,
    }
    ServerOptionsFor {
        rule: server_options_for(),
        first: ["server"],
        usage: "Server options for \"NAME\":",
        opens: [
            "server options for" => "Server options for \"NAME\":",
        ],
        vocabulary: Statements,
    }
    CompareTarget {
        rule: compare_target(src),
        first: ["compare", "parity"],
        usage: "Compare target \"NAME\": COMMAND OR URL",
        opens: [
            "compare target" => "Compare target \"NAME\": COMMAND OR URL",
            "parity target" => "Parity target \"NAME\": COMMAND OR URL",
        ],
        vocabulary: Statements,
    }
    TargetOptionsFor {
        rule: target_options_for(),
        first: ["target"],
        usage: "Target options for \"NAME\":",
        opens: [
            "target options for" => "Target options for \"NAME\":",
        ],
        vocabulary: Statements,
    }
    DefaultTimeout {
        rule: default_timeout(),
        first: ["default"],
        usage: "Default timeout: 10 seconds",
        opens: [
            "default timeout:" => "Default timeout: 10 seconds",
        ],
        vocabulary: Statements,
    }
    DefaultRetries {
        rule: default_retries(),
        first: ["default"],
        usage: "Default retries: 2",
        opens: [
            "default retries:" => "Default retries: 2",
        ],
        vocabulary: Statements,
    }
    ShutdownGrace {
        rule: shutdown_grace(),
        first: ["shutdown"],
        usage: "Shutdown grace: 200 ms",
        opens: [
            "shutdown grace:" => "Shutdown grace: 200 ms",
        ],
        vocabulary: Statements,
    }
    SessionSetting {
        rule: session_setting(),
        first: ["session"],
        usage: "Session: shared",
        opens: [
            "session: shared" => "Session: shared",
            "session: per test" => "Session: per test",
        ],
        vocabulary: Statements,
    }
    MinimumCoverage {
        rule: minimum_coverage(),
        first: ["minimum"],
        usage: "Minimum coverage: 80%",
        opens: [
            "minimum coverage:" => "Minimum coverage: 80%",
        ],
        vocabulary: Statements,
    }
    Budget {
        rule: budget(),
        first: ["budget"],
        usage: "Budget for \"TEST\": p95 500 ms over 20 calls",
        opens: [
            "budget:" => "Budget: p95 500 ms over 20 calls",
            "budget for" => "Budget for \"TEST\": p95 500 ms",
        ],
        vocabulary: Statements,
    }
    Redact {
        rule: redact(src),
        first: ["redact"],
        usage: "Redact: \"VALUE\", \"VALUE\"",
        opens: [
            "redact:" => "Redact: \"VALUE\", \"VALUE\"",
        ],
        vocabulary: Statements,
    }
    Snapshots {
        rule: snapshots(src),
        first: ["snapshots"],
        usage: "Snapshots: FILE",
        opens: [
            "snapshots:" => "Snapshots: FILE",
        ],
        vocabulary: Statements,
    }
    IgnoreSnapshotPaths {
        rule: ignore_snapshot_paths(src),
        first: ["ignore"],
        usage: "Ignore snapshot paths: \"$.PATH\", \"$.PATH\"",
        opens: [
            "ignore snapshot paths:" => "Ignore snapshot paths: \"$.PATH\"",
        ],
        vocabulary: Statements,
    }
    ClientBehavior {
        rule: client_behavior(),
        first: ["client"],
        usage: "Client behavior:",
        opens: [
            "client behavior:" => "Client behavior:",
        ],
        vocabulary: Statements,
    }
    Functions {
        rule: functions(src),
        first: ["functions", "custom"],
        usage: "Functions: PATH, PATH",
        opens: [
            "functions:" => "Functions: PATH",
            "custom functions:" => "Custom functions: PATH",
        ],
        vocabulary: Statements,
    }
    Extensions {
        rule: extensions(),
        first: ["extensions"],
        usage: "Extensions:",
        opens: [
            "extensions:" => "Extensions:",
        ],
        vocabulary: Statements,
    }
    ImportFlows {
        rule: import_flows(),
        first: ["import"],
        usage: "Import flows from \"PATH\"",
        opens: [
            "import flows from" => "Import flows from \"PATH\"",
        ],
        vocabulary: Statements,
    }
    FlowHeader {
        rule: flow_header(),
        first: ["flow"],
        usage: "Flow: \"NAME\"",
        opens: [
            "flow:" => "Flow: \"NAME\"",
        ],
        vocabulary: Statements,
    }
    DataSourceHeader {
        rule: data_source_header(),
        first: ["data"],
        usage: "Data source: \"NAME\"",
        opens: [
            "data source:" => "Data source: \"NAME\"",
        ],
        vocabulary: Statements,
    }
    TestHeader {
        rule: test_header(src),
        first: ["test", "scenario"],
        usage: "Test: NAME",
        opens: [
            "test:" => "Test: NAME",
            "scenario:" => "Scenario: NAME",
        ],
        vocabulary: Statements,
    }
    // Properties of tests and flows, and the sections of their bodies.
    Inputs {
        rule: inputs(src),
        first: ["inputs"],
        usage: "Inputs: a, b=1",
        opens: [
            "inputs:" => "Inputs: a, b=1",
        ],
        vocabulary: Statements,
    }
    Outputs {
        rule: outputs(src),
        first: ["outputs"],
        usage: "Outputs: VALUE",
        opens: [
            "outputs:" => "Outputs: VALUE",
        ],
        vocabulary: Statements,
    }
    Id {
        rule: id(src),
        first: ["id"],
        usage: "Id: ID",
        opens: [
            "id:" => "Id: ID",
        ],
        vocabulary: Statements,
    }
    TestId {
        rule: id(src),
        first: ["test"],
        usage: "Test ID: ID",
        opens: [
            "test id:" => "Test ID: ID",
        ],
        vocabulary: Statements,
    }
    OnServer {
        rule: on_server(),
        first: ["on"],
        usage: "On server \"NAME\"",
        opens: [
            "on server" => "On server \"NAME\"",
        ],
        vocabulary: Statements,
    }
    Skip {
        rule: skip(src),
        first: ["skip"],
        usage: "Skip: REASON",
        opens: [
            "skip" => "Skip: REASON",
        ],
        vocabulary: Statements,
    }
    Variables {
        rule: variables(),
        first: ["variables"],
        usage: "Variables:",
        opens: [
            "variables:" => "Variables:",
        ],
        vocabulary: Statements,
    }
    ContinueOnFailure {
        rule: continue_on_failure(),
        first: ["continue"],
        usage: "Continue on failure",
        opens: [
            "continue on failure" => "Continue on failure",
        ],
        vocabulary: Statements,
    }
    IsolatedSession {
        rule: isolated_session(),
        first: ["isolated"],
        usage: "Isolated session",
        opens: [
            "isolated session" => "Isolated session",
        ],
        vocabulary: Statements,
    }
    Retries {
        rule: retries(),
        first: ["retries"],
        usage: "Retries: 2",
        opens: [
            "retries:" => "Retries: 2",
        ],
        vocabulary: Statements,
    }
    LogicalName {
        rule: logical_name(src),
        first: ["logical"],
        usage: "Logical name: NAME",
        opens: [
            "logical name:" => "Logical name: NAME",
        ],
        vocabulary: Statements,
    }
    DataRow {
        rule: data_row(),
        first: ["data"],
        usage: "Data row:",
        opens: [
            "data row:" => "Data row:",
        ],
        vocabulary: Statements,
    }
    Require {
        rule: require(src),
        first: ["require", "given"],
        usage: "Require: CAPABILITY, CAPABILITY",
        opens: [
            "require:" => "Require: CAPABILITY",
            "given the server supports:" => "Given the server supports: CAPABILITY",
        ],
        vocabulary: Statements,
    }
    RequireProtocol {
        rule: require_protocol(src),
        first: ["require"],
        usage: "Require protocol: \"2025-06-18\"",
        opens: [
            "require protocol:" => "Require protocol: \"2025-06-18\"",
        ],
        vocabulary: Statements,
    }
    DependsOn {
        rule: depends_on(src),
        first: ["depends", "after"],
        usage: "Depends on: ID, ID",
        opens: [
            "depends on:" => "Depends on: ID",
            "after:" => "After: ID",
        ],
        vocabulary: Statements,
    }
    Section {
        rule: section(),
        first: ["setup", "steps", "step", "actions", "action", "cleanup"],
        usage: "Setup: / Steps: / Cleanup:",
        opens: [
            "setup:" => "Setup:",
            "steps:" => "Steps:",
            "cleanup:" => "Cleanup:",
        ],
        vocabulary: Statements,
    }
    // Actions.
    CallTool {
        rule: call_tool(),
        first: ["call", "when"],
        usage: "Call tool \"NAME\" with:",
        opens: [
            "call tool" => "Call tool \"NAME\" with:",
            "call the tool" => "Call the tool \"NAME\" with:",
            "when i call the tool" => "When I call the tool \"NAME\" with:",
        ],
        vocabulary: Statements,
    }
    CallToolValues {
        rule: call_tool_values(src),
        first: ["call", "when"],
        usage: "Call tool \"NAME\" with values 2, 3, b=10",
        opens: [],
        vocabulary: Statements,
    }
    CallToolProgress {
        rule: call_tool_progress(),
        first: ["call", "when"],
        usage: "Call tool \"NAME\" with progress and cancel after 500 ms with:",
        opens: [],
        vocabulary: Statements,
    }
    ReadResource {
        rule: read_resource(),
        first: ["read", "when"],
        usage: "Read resource \"URI\"",
        opens: [
            "read resource" => "Read resource \"URI\"",
            "read the resource" => "Read the resource \"URI\"",
            "when i read the resource" => "When I read the resource \"URI\"",
        ],
        vocabulary: Statements,
    }
    GetPrompt {
        rule: get_prompt(),
        first: ["get", "when"],
        usage: "Get prompt \"NAME\" with:",
        opens: [
            "get prompt" => "Get prompt \"NAME\" with:",
            "get the prompt" => "Get the prompt \"NAME\" with:",
            "when i get the prompt" => "When I get the prompt \"NAME\"",
        ],
        vocabulary: Statements,
    }
    Send {
        rule: send(),
        first: ["send", "when"],
        usage: "Send \"METHOD\" with:",
        opens: [
            "send" => "Send \"METHOD\" with:",
            "when i send" => "When I send \"METHOD\"",
        ],
        vocabulary: Statements,
    }
    Subscribe {
        rule: subscribe(),
        first: ["subscribe"],
        usage: "Subscribe to resource \"URI\"",
        opens: [
            "subscribe to resource" => "Subscribe to resource \"URI\"",
        ],
        vocabulary: Statements,
    }
    Unsubscribe {
        rule: unsubscribe(),
        first: ["unsubscribe"],
        usage: "Unsubscribe from resource \"URI\"",
        opens: [
            "unsubscribe from resource" => "Unsubscribe from resource \"URI\"",
        ],
        vocabulary: Statements,
    }
    WaitForNotification {
        rule: wait_for_notification(),
        first: ["wait"],
        usage: "Wait for notification \"METHOD\" where \"PATH\" equals VALUE within 5 seconds",
        opens: [
            "wait for notification" => "Wait for notification \"METHOD\" within 5 seconds",
        ],
        vocabulary: Statements,
    }
    SetLogLevel {
        rule: set_log_level(src),
        first: ["set"],
        usage: "Set log level to \"LEVEL\"",
        opens: [
            "set log level to" => "Set log level to \"LEVEL\"",
        ],
        vocabulary: Statements,
    }
    ListAll {
        rule: list_all(),
        first: ["list"],
        usage: "List all tools|resources|prompts|resource templates",
        opens: [
            "list all tools" => "List all tools",
            "list all resources" => "List all resources",
            "list all prompts" => "List all prompts",
            "list all resource templates" => "List all resource templates",
        ],
        vocabulary: Statements,
    }
    GetTask {
        rule: get_task(),
        first: ["get"],
        usage: "Get task \"TASK-ID\"",
        opens: [
            "get task" => "Get task \"TASK-ID\"",
        ],
        vocabulary: Statements,
    }
    ListTasks {
        rule: list_tasks(),
        first: ["list"],
        usage: "List tasks",
        opens: [
            "list tasks" => "List tasks",
        ],
        vocabulary: Statements,
    }
    CancelTask {
        rule: cancel_task(),
        first: ["cancel"],
        usage: "Cancel task \"TASK-ID\"",
        opens: [
            "cancel task" => "Cancel task \"TASK-ID\"",
        ],
        vocabulary: Statements,
    }
    Reconnect {
        rule: reconnect(),
        first: ["reconnect"],
        usage: "Reconnect",
        opens: [
            "reconnect" => "Reconnect",
        ],
        vocabulary: Statements,
    }
    RespondElicitation {
        rule: respond_elicitation(),
        first: ["when"],
        usage: "When the server asks for input, respond \"accept\" with:",
        opens: [
            "when the server asks for input," => "When the server asks for input, respond \"accept\" with:",
        ],
        vocabulary: Statements,
    }
    RespondSampling {
        rule: respond_sampling(),
        first: ["when"],
        usage: "When the server requests sampling, respond \"TEXT\"",
        opens: [
            "when the server requests sampling," => "When the server requests sampling, respond \"TEXT\"",
        ],
        vocabulary: Statements,
    }
    SetUsing {
        rule: set_using(),
        first: ["set"],
        usage: "Set \"VARIABLE\" using \"FUNCTION\" with:",
        opens: [
            "set" => "Set \"VARIABLE\" using \"FUNCTION\" with:",
        ],
        vocabulary: Statements,
    }
    UseFlow {
        rule: use_flow(),
        first: ["use"],
        usage: "Use flow \"NAME\" with:",
        opens: [
            "use flow" => "Use flow \"NAME\" with:",
        ],
        vocabulary: Statements,
    }
    RunStep {
        rule: run_step(),
        first: ["run"],
        usage: "Run step with:",
        opens: [
            "run step with:" => "Run step with:",
        ],
        vocabulary: Statements,
    }
    ForEachRow {
        rule: for_each_row(),
        first: ["for"],
        usage: "For each row: | For each row in \"FILE\" | For each row from \"SOURCE\"",
        opens: [
            "for each row" => "For each row:",
        ],
        vocabulary: Statements,
    }
    // Expectations and modifiers. `Wait up to` comes last so that among three-word
    // openings the suggestions keep their order.
    ExpectPath {
        rule: expect_path(src),
        first: ["expect", "then"],
        usage: "Expect \"PATH\" equals VALUE",
        opens: [
            "expect" => "Expect \"PATH\" equals VALUE",
            "then" => "Then \"PATH\" equals VALUE",
        ],
        vocabulary: Statements,
    }
    ExpectSuccess {
        rule: expect_success(),
        first: ["expect", "then"],
        usage: "Expect it succeeds",
        opens: [
            "expect it succeeds" => "Expect it succeeds",
        ],
        vocabulary: Statements,
    }
    ExpectError {
        rule: expect_error(),
        first: ["expect", "then"],
        usage: "Expect an error",
        opens: [
            "expect an error" => "Expect an error",
        ],
        vocabulary: Statements,
    }
    ExpectErrorCode {
        rule: expect_error_code(),
        first: ["expect", "then"],
        usage: "Expect error code -32602",
        opens: [
            "expect error code" => "Expect error code -32602",
        ],
        vocabulary: Statements,
    }
    ExpectErrorMessage {
        rule: expect_error_message(src),
        first: ["expect", "then"],
        usage: "Expect error message contains TEXT",
        opens: [
            "expect error message" => "Expect error message contains TEXT",
        ],
        vocabulary: Statements,
    }
    ExpectFinish {
        rule: expect_finish(),
        first: ["expect", "then"],
        usage: "Expect the call to finish within 800 ms",
        opens: [
            "expect the call to finish within" => "Expect the call to finish within 800 ms",
        ],
        vocabulary: Statements,
    }
    ExpectLintClean {
        rule: expect_lint_clean(src),
        first: ["expect", "then"],
        usage: "Expect the server is lint clean [only errors | including info] [ignoring MCP005, MCP015]",
        opens: [
            "expect the server is lint clean" => "Expect the server is lint clean",
        ],
        vocabulary: Statements,
    }
    ExpectToolsSnapshot {
        rule: expect_tools_snapshot(),
        first: ["expect", "then"],
        usage: "Expect the tools match snapshot \"FILE\" [allowing compatible changes]",
        opens: [
            "expect the tools match snapshot" => "Expect the tools match snapshot \"tools.json\"",
        ],
        vocabulary: Statements,
    }
    Save {
        rule: save(),
        first: ["save", "remember"],
        usage: "Save \"PATH\" as \"VARIABLE\"",
        opens: [
            "save" => "Save \"PATH\" as \"VARIABLE\"",
            "remember" => "Remember \"PATH\" as \"VARIABLE\"",
        ],
        vocabulary: Statements,
    }
    Export {
        rule: export(),
        first: ["export"],
        usage: "Export \"PATH\" as \"NAME\"",
        opens: [
            "export" => "Export \"PATH\" as \"NAME\"",
        ],
        vocabulary: Statements,
    }
    WaitUpTo {
        rule: wait_up_to(),
        first: ["wait"],
        usage: "Wait up to 2 seconds",
        opens: [
            "wait up to" => "Wait up to 2 seconds",
        ],
        vocabulary: Statements,
    }
    Fault {
        rule: fault(),
        first: ["drop", "delay", "disconnect", "duplicate", "corrupt"],
        usage: "Drop the response | Delay the response by 2 seconds | Disconnect after the request | Duplicate the response | Corrupt the response",
        opens: [
            "drop the response" => "Drop the response",
            "delay the response by" => "Delay the response by 2 seconds",
            "disconnect after the request" => "Disconnect after the request",
            "duplicate the response" => "Duplicate the response",
            "corrupt the response" => "Corrupt the response",
        ],
        vocabulary: Statements,
    }
    // Phrases of a phrase-mode `Data source:` block.
    FromFile {
        rule: from_file(),
        first: ["from"],
        usage: "From CSV \"FILE\"",
        opens: [
            "from csv" => "From CSV \"FILE\"",
            "from json" => "From JSON \"FILE\"",
            "from yaml" => "From YAML \"FILE\"",
            "from excel" => "From Excel \"FILE\" sheet \"SHEET\"",
        ],
        vocabulary: DataPhrases,
    }
    FromRest {
        rule: from_rest(),
        first: ["from"],
        usage: "From REST \"URL\" at \"PATH\"",
        opens: [
            "from rest" => "From REST \"URL\" at \"PATH\"",
        ],
        vocabulary: DataPhrases,
    }
    Column {
        rule: column(src),
        first: ["column"],
        usage: "Column \"NAME\" is string required",
        opens: [
            "column" => "Column \"NAME\" is string required",
        ],
        vocabulary: DataPhrases,
    }
    Derive {
        rule: derive(src),
        first: ["derive"],
        usage: "Derive \"NAME\" as TEMPLATE",
        opens: [
            "derive" => "Derive \"NAME\" as TEMPLATE",
        ],
        vocabulary: DataPhrases,
    }
    KeepRows {
        rule: keep_rows(src),
        first: ["keep"],
        usage: "Keep rows where \"COLUMN\" equals VALUE",
        opens: [
            "keep rows where" => "Keep rows where \"COLUMN\" equals VALUE",
        ],
        vocabulary: DataPhrases,
    }
    Sample {
        rule: sample(),
        first: ["sample"],
        usage: "Sample 25 rows with seed 2025",
        opens: [
            "sample first" => "Sample first 10 rows",
            "sample" => "Sample 25 rows with seed 2025",
        ],
        vocabulary: DataPhrases,
    }
    Cache {
        rule: cache(),
        first: ["cache"],
        usage: "Cache this source",
        opens: [
            "cache this source" => "Cache this source",
        ],
        vocabulary: DataPhrases,
    }
}
