//! The single registry of run-time codes, as `mcpr_compiler::diagnostics::Code` is for
//! `MCPLANG###`. Every `MCP-…` code the runtime and the CLI produce is listed here once with
//! its title and its [`RunClass`] (what it means for the test's outcome and the exit code),
//! and has a page in `docs/errors/CODE.md`, compiled in so `mcpr explain` works anywhere.
//!
//! The first implementation's codes are registered too, as [`RunClass::Retired`]: mcpr never
//! produces them, and their page says which codes replace them (the `MCPLANG` codes whose
//! `replaces` names them, and the run-time codes listed in the row). Some of those names are
//! also live run-time codes with a meaning of their own (`MCP-CONFIG-001`, `MCP-DEP-001`, …);
//! such a row has its live class, and its page describes both meanings.
//!
//! Beside the registry sit the classes a code gives: [`RunClass`], the test's [`Outcome`] and
//! the command's [`ExitClass`].
//!
//! Codes are never reused; a retired code keeps its row. Error *data* (for example
//! [`crate::error::ErrorKind`]) names its code through this registry; the wording of the
//! message stays with the data.

use mcpr_compiler::diagnostics::Code;

/// What the exit code of a command says, as the command line maps it: 0, 1, 2, 3, 130.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExitClass {
    /// Every test passed (or was skipped) and every gate held.
    Passed,
    /// A test failed or was blocked, a latency gate failed, or targets differ (parity).
    TestsFailed,
    /// Bad usage, a suite that does not compile, or a configuration error found before
    /// any test ran.
    Usage,
    /// A server, transport or internal failure: a test errored, or the run could not go on.
    ServerFailure,
    /// The run was interrupted (Ctrl-C).
    Interrupted,
}

/// How a test ended.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every step ran and every expectation held.
    Passed,
    /// An expectation did not hold.
    Failed,
    /// The server or the environment broke (no session, the server died, …).
    Errored,
    /// Not run: `skip`, or an unmet `requires`.
    Skipped,
    /// Not run: a dependency did not pass.
    Blocked,
    /// Failed or errored, then passed on a retry (`Retries:`, `--retries`): passed for its
    /// dependents and the exit code, reported apart.
    Flaky,
    /// Not run or not finished: a signal (SIGINT, SIGTERM, SIGHUP) stopped the run.
    Interrupted,
}

impl Outcome {
    /// The lower-case name used in every report.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
            Outcome::Skipped => "skipped",
            Outcome::Blocked => "blocked",
            Outcome::Flaky => "flaky",
            Outcome::Interrupted => "interrupted",
        }
    }

    /// Whether the test passed in the end (at once, or on a retry).
    pub fn is_pass(self) -> bool {
        matches!(self, Outcome::Passed | Outcome::Flaky)
    }

    /// Whether the test ran and did not pass (what a retry runs again).
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Failed | Outcome::Errored)
    }
}

/// What a code means for the outcome of a test and for the exit code of `mcpr run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunClass {
    /// An expectation about the server did not hold: the test is `failed`, exit 1.
    Failed,
    /// The server, its transport or the test's environment broke: the test is `errored`,
    /// exit 3.
    Errored,
    /// The test did not run on purpose (`skip`, an unmet `requires`, `--fail-fast`): it is
    /// `skipped`, which alone leaves the exit code at 0.
    Skipped,
    /// The test did not run because a dependency did not pass: it is `blocked`, exit 1.
    Blocked,
    /// The suite, its data, its settings or the command line are unusable; found before any
    /// test runs, it stops the run with exit 2.
    Setup,
    /// Something outside the suite (a data host, a database, a plugin) failed before any
    /// test ran: the run stops with exit 3.
    Environment,
    /// A bug in mcpr: exit 3.
    Internal,
    /// A protocol rule was broken and recorded on the session; the outcome does not change.
    Violation,
    /// A signal stopped the run before the test ended: the test is `interrupted`, and the
    /// run exits with the signal's code.
    Interrupted,
    /// A code of the first implementation that mcpr never produces.
    Retired,
}

impl RunClass {
    /// Every class, in declaration order.
    pub const ALL: &'static [RunClass] = &[
        RunClass::Failed,
        RunClass::Errored,
        RunClass::Skipped,
        RunClass::Blocked,
        RunClass::Setup,
        RunClass::Environment,
        RunClass::Internal,
        RunClass::Violation,
        RunClass::Interrupted,
        RunClass::Retired,
    ];

    /// Lower-case name, as the pages and `mcpr explain --list` show it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunClass::Failed => "failed",
            RunClass::Errored => "errored",
            RunClass::Skipped => "skipped",
            RunClass::Blocked => "blocked",
            RunClass::Setup => "setup",
            RunClass::Environment => "environment",
            RunClass::Internal => "internal",
            RunClass::Violation => "violation",
            RunClass::Interrupted => "interrupted",
            RunClass::Retired => "retired",
        }
    }

    /// How `mcpr run` ends because of a code of this class: 1 failed or blocked, 2 setup,
    /// 3 errored, environment or internal, 0 skipped or violation (they alone do not fail
    /// a run); `None` for retired codes, which are never produced.
    pub fn exit_class(self) -> Option<ExitClass> {
        match self {
            RunClass::Failed | RunClass::Blocked => Some(ExitClass::TestsFailed),
            RunClass::Setup => Some(ExitClass::Usage),
            RunClass::Errored | RunClass::Environment | RunClass::Internal => {
                Some(ExitClass::ServerFailure)
            }
            RunClass::Skipped | RunClass::Violation => Some(ExitClass::Passed),
            RunClass::Interrupted => Some(ExitClass::Interrupted),
            RunClass::Retired => None,
        }
    }

    /// The outcome a code of this class gives the test it occurs in, if it is one of the
    /// test outcomes (failed, errored, skipped, blocked, interrupted).
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            RunClass::Failed => Some(Outcome::Failed),
            RunClass::Errored => Some(Outcome::Errored),
            RunClass::Skipped => Some(Outcome::Skipped),
            RunClass::Blocked => Some(Outcome::Blocked),
            RunClass::Interrupted => Some(Outcome::Interrupted),
            _ => None,
        }
    }

    /// Whether a code of this class stops the whole run before (or instead of) its tests.
    pub fn stops_the_run(self) -> bool {
        matches!(
            self,
            RunClass::Setup | RunClass::Environment | RunClass::Internal
        )
    }

    /// One sentence for people: what the class means.
    pub fn meaning(self) -> &'static str {
        match self {
            RunClass::Failed => {
                "an expectation about the server did not hold: the test failed (exit 1)"
            }
            RunClass::Errored => {
                "the server, its transport or the environment broke: the test errored (exit 3)"
            }
            RunClass::Skipped => {
                "the test was not run on purpose: it is skipped (exit 0 unless something else failed)"
            }
            RunClass::Blocked => {
                "a dependency did not pass, so the test was not run: it is blocked (exit 1)"
            }
            RunClass::Setup => {
                "the suite, its data, its settings or the command line cannot be used: the run stops before its tests (exit 2)"
            }
            RunClass::Environment => {
                "something outside the suite failed before the tests: the run stops (exit 3)"
            }
            RunClass::Internal => "a bug in mcpr (exit 3)",
            RunClass::Violation => {
                "a protocol rule was broken and recorded; the outcome does not change"
            }
            RunClass::Interrupted => {
                "a signal stopped the run before the test ended: it is interrupted (exit 128 + the signal's number)"
            }
            RunClass::Retired => "a code of the first implementation that mcpr does not produce",
        }
    }
}

impl std::fmt::Display for RunClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! registry {
    ($( $variant:ident = $code:literal, $class:ident, $title:literal, [$($by:literal),*]; )*) => {
        /// A registered run-time code (or a retired code of the first implementation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RunCode {
            $(
                #[doc = $title]
                $variant,
            )*
        }

        impl RunCode {
            /// Every registered code, in registry order (by family).
            pub const ALL: &'static [RunCode] = &[$(RunCode::$variant),*];

            /// The code as printed, e.g. `MCP-TIMEOUT-001`.
            pub const fn as_str(self) -> &'static str {
                match self { $(RunCode::$variant => $code,)* }
            }

            /// One-line title.
            pub fn title(self) -> &'static str {
                match self { $(RunCode::$variant => $title,)* }
            }

            /// What the code means for the test's outcome and the exit code.
            pub fn class(self) -> RunClass {
                match self { $(RunCode::$variant => RunClass::$class,)* }
            }

            /// Run-time (or `MCPLANG`) codes that replace this code's first-implementation
            /// meaning, besides the `MCPLANG` codes whose `replaces` names it (see
            /// [`RunCode::replaced_by`]).
            pub fn also_replaced_by(self) -> &'static [&'static str] {
                match self { $(RunCode::$variant => &[$($by),*],)* }
            }

            /// The documentation page (`docs/errors/CODE.md`), compiled in.
            pub fn doc(self) -> &'static str {
                match self {
                    $(RunCode::$variant => include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"), "/embedded/errors/", $code, ".md"
                    )),)*
                }
            }
        }
    };
}

registry! {
    // Starting the server and the handshake.
    Spawn = "MCP-SPAWN-001", Errored, "The server could not be started", [];
    Handshake = "MCP-INIT-001", Errored, "The handshake failed", [];
    UnsupportedVersion = "MCP-INIT-002", Errored, "The server answered a protocol version the client cannot use", [];
    ServerExited = "MCP-EXIT-001", Errored, "The server exited during the session", [];
    Closed = "MCP-CLOSED-001", Errored, "The session is closed", [];
    Write = "MCP-IO-001", Errored, "Cannot write to the server's stdin", [];
    // Deadlines.
    Timeout = "MCP-TIMEOUT-001", Failed, "No response within the deadline", [];
    StepTimeout = "MCP-TIMEOUT-002", Failed, "A step did not finish within its deadline", [];
    NoNotification = "MCP-EVENT-001", Failed, "The awaited notification did not arrive", [];
    // The wire and the protocol.
    NotJsonRpc = "MCP-PROTOCOL-001", Failed, "The server sent something that is not a JSON-RPC message", [];
    UnknownResponseId = "MCP-PROTOCOL-002", Failed, "A response to an id the client never sent", [];
    MessageTooLarge = "MCP-PROTOCOL-003", Failed, "A message larger than the size limit", [];
    DuplicateResponse = "MCP-PROTOCOL-004", Failed, "A second response to the same request", [];
    InvalidResult = "MCP-PROTOCOL-005", Failed, "A result without the shape the protocol requires", [];
    BadProgress = "MCP-PROTOCOL-006", Failed, "Progress notifications that break the rules", [];
    RepeatedCursor = "MCP-PROTOCOL-007", Failed, "A list returned the same cursor twice", [];
    FaultNotSeen = "MCP-FAULT-001", Failed, "A step's injected fault did not have its effect", [];
    StructuredContent = "MCP-PROTOCOL-008", Failed, "structuredContent missing or not matching the outputSchema", [];
    NotificationFlood = "MCP-PROTOCOL-009", Errored, "The server flooded the session with notifications", [];
    InputRequired = "MCP-PROTOCOL-010", Failed, "A multi round-trip request did not converge", [];
    Conformance = "MCP-PROTOCOL-011", Violation, "A rule of the protocol version in use was broken", [];
    BufferBudget = "MCP-PROTOCOL-012", Errored, "The session's byte budget was exceeded", [];
    TooManyValues = "MCP-PROTOCOL-013", Failed, "A message with more JSON values than the limit", [];
    // Answers.
    RpcError = "MCP-RPC-001", Failed, "The server answered with a JSON-RPC error", [];
    ToolError = "MCP-TOOL-001", Failed, "The tool reported an error (isError)", [];
    Unsupported = "MCP-CAP-001", Failed, "The operation is not available on this server", [];
    Skill = "MCP-SKILL-001", Failed, "A skill's files do not match its manifest", [];
    App = "MCP-APP-001", Failed, "An MCP App resource breaks the extension's rules", [];
    NoApps = "MCP-APPS-001", Failed, "No tool of the server declares an MCP App", [];
    // HTTP and credentials.
    Http = "MCP-HTTP-001", Errored, "An HTTP exchange failed", [];
    SessionExpired = "MCP-HTTP-002", Errored, "The HTTP session expired again after a new initialize", [];
    TokenCommandEmpty = "MCP-AUTH-001", Setup, "The Token from command is empty", [];
    TokenCommand = "MCP-AUTH-002", Setup, "The Token from command gave no token", [];
    Unauthorized = "MCP-AUTH-003", Errored, "The server refused the request's credentials", [];
    OAuthDiscovery = "MCP-AUTH-004", Errored, "The OAuth metadata of the server could not be discovered", [];
    OAuthMetadataRefused = "MCP-AUTH-005", Errored, "OAuth metadata that must not be used (resource, issuer, PKCE)", [];
    OAuthNoClient = "MCP-AUTH-006", Errored, "No OAuth client identity at the authorization server", [];
    OAuthLoginRequired = "MCP-AUTH-007", Errored, "The authorization step needs a person", [];
    OAuthAuthorizationResponse = "MCP-AUTH-008", Errored, "The authorization response was refused or was an error", [];
    OAuthTokenRefused = "MCP-AUTH-009", Errored, "The token endpoint refused the request", [];
    OAuthInsufficientScope = "MCP-AUTH-010", Errored, "The server still refuses the scope after step-up", [];
    OAuthSettings = "MCP-AUTH-011", Setup, "The target's OAuth settings cannot be used", [];
    Usage = "MCP-USAGE-001", Setup, "A request the caller should not have made", [];
    // Expectations and step results.
    Assertion = "MCP-ASSERT-001", Failed, "An expectation did not hold", [];
    PatternTimeout = "MCP-ASSERT-002", Failed, "A pattern did not finish matching within the step's deadline", [];
    SchemaMismatch = "MCP-SCHEMA-001", Failed, "A value does not match its JSON Schema", [];
    InvalidSchema = "MCP-SCHEMA-002", Failed, "The expected schema is not a valid JSON Schema", [];
    TooSlow = "MCP-PERF-001", Failed, "A step took longer than its maxDurationMs", [];
    Capture = "MCP-CAPTURE-001", Failed, "The value to save is not in the response", [];
    Export = "MCP-EXPORT-001", Failed, "The value to export is not in the response", [];
    UnresolvedVariable = "MCP-VAR-001", Failed, "A ${…} reference cannot be resolved", [];
    UnknownFunction = "MCP-EXT-002", Failed, "Unknown utility function", [];
    FunctionFailed = "MCP-EXT-005", Failed, "A utility function failed", [];
    // Custom-function modules (docs/functions.md).
    CustomCodeOff = "MCP-EXT-001", Setup, "Custom functions without --allow-custom-code", [];
    FunctionTimeout = "MCP-EXT-003", Failed, "A custom function did not finish in time", [];
    FunctionNotJson = "MCP-EXT-004", Failed, "A custom function returned a value that is not JSON", [];
    FunctionModule = "MCP-EXT-006", Setup, "A function module cannot be loaded", [];
    NoFunctionHost = "MCP-EXT-007", Environment, "Node.js, which runs custom functions, cannot be started", [];
    FunctionHost = "MCP-EXT-008", Environment, "The function host exited or broke its protocol", [];
    FunctionManifest = "MCP-EXT-100", Setup, "A function module's manifest is invalid", [];
    ManifestPermissions = "MCP-EXT-101", Setup, "A function module needs permissions the suite does not grant", [];
    NotAllowlisted = "MCP-EXT-109", Setup, "A function module that is not in the suite's allowlist", [];
    // Legacy .mcp script commands.
    ToolArguments = "MCP-ARGS-001", Failed, "Tool arguments that the tool's schema does not take", [];
    NoTerminal = "MCP-INPUT-001", Failed, "input_var without a person at the terminal", [];
    NoTaskHandle = "MCP-TASK-001", Failed, "The tool did not answer with a task handle", [];
    TaskStatus = "MCP-TASK-002", Failed, "The task ended in another status than the awaited one", [];
    NativeStep = "MCP-NATIVE-001", Failed, "A native step lacks what it needs", [];
    // Snapshots.
    SnapshotStore = "MCP-SNAPSHOT-001", Setup, "The snapshot store cannot be used", [];
    SnapshotMissing = "MCP-SNAPSHOT-002", Failed, "A snapshot is missing (CI)", [];
    SnapshotChanged = "MCP-SNAPSHOT-003", Failed, "A value differs from its snapshot", [];
    ToolsChanged = "MCP-SNAPSHOT-004", Failed, "The server's definitions differ from the tool snapshot", [];
    // Server quality gates.
    LintNotClean = "MCP-LINT-001", Failed, "The server's definitions have lint findings at the failing level", [];
    CoverageBelowMinimum = "MCP-COVERAGE-001", Failed, "The run exercised less of the server than the minimum coverage", [];
    // Which tests run.
    MissingCapability = "MCP-REQ-001", Skipped, "The server lacks a required capability", [];
    ProtocolNotRequired = "MCP-REQ-002", Skipped, "The negotiated protocol version is not a required one", [];
    Skip = "MCP-SKIP-001", Skipped, "The test is marked to be skipped", [];
    FailFast = "MCP-FAILFAST-001", Skipped, "Not run: --fail-fast stopped the run", [];
    Interrupted = "MCP-INTERRUPT-001", Interrupted, "Not run or not finished: a signal stopped the run", [];
    DuplicateId = "MCP-DEP-001", Setup, "Two tests have the same id", [];
    DependencyCycle = "MCP-DEP-002", Setup, "The dependencies form a cycle", [];
    Blocked = "MCP-DEP-003", Blocked, "A dependency did not pass", [];
    UnknownDependency = "MCP-DEP-004", Setup, "A dependency names no test", [];
    // The run's settings.
    TargetUnusable = "MCP-CONFIG-001", Errored, "The test's server target cannot be used", [];
    UnknownServerOrRows = "MCP-CONFIG-002", Setup, "An undeclared named server, or data rows that were not loaded", [];
    BadShard = "MCP-CONFIG-003", Setup, "Invalid --shard K/N", [];
    NoServer = "MCP-CONFIG-004", Setup, "No server to run the suite against", ["MCPLANG201"];
    ParityTargets = "MCP-PARITY-001", Setup, "Parity needs two or more compare targets", [];
    StateFormat = "MCP-STATE-001", Setup, "The state file cannot be read", [];
    StateIntegrity = "MCP-STATE-002", Setup, "The state file was changed after it was written", [];
    StateTarget = "MCP-STATE-003", Setup, "The state file was written for another target", [];
    Internal = "MCP-INTERNAL-001", Internal, "An internal error of mcpr", [];
    // Data sources.
    DataProvider = "MCP-DATA-001", Setup, "No provider for the data source", [];
    TooManyRows = "MCP-DATA-002", Setup, "More rows than --max-rows", [];
    PluginsOff = "MCP-DATA-003", Setup, "A plugin source without --allow-custom-code", [];
    DataFileTooLarge = "MCP-DATA-005", Setup, "A data file larger than 10 MiB", [];
    DuplicateHeader = "MCP-DATA-006", Setup, "A header names a column twice", [];
    UnclosedCsvQuote = "MCP-DATA-007", Setup, "A CSV quote is never closed", [];
    NoSuchSheet = "MCP-DATA-008", Setup, "The workbook has no such sheet", [];
    RemoteDataOff = "MCP-DATA-009", Setup, "A remote source without --allow-remote-data", [];
    DataHttpStatus = "MCP-DATA-010", Environment, "The data URL answered an HTTP error", [];
    NotRows = "MCP-DATA-011", Setup, "The data is not a list of rows", [];
    SqlSource = "MCP-DATA-012", Setup, "A SQL source without a query or a usable connection", [];
    BadDataUrl = "MCP-DATA-013", Setup, "The data URL is not allowed", [];
    TooManyRedirects = "MCP-DATA-014", Setup, "The data URL redirected more than 3 times", [];
    ResponseTooLarge = "MCP-DATA-015", Setup, "The data response is larger than 10 MiB", [];
    HostUnresolved = "MCP-DATA-016", Environment, "The data host does not resolve", [];
    PrivateAddress = "MCP-DATA-017", Setup, "The data host has a private or loopback address", [];
    WorkbookTooLarge = "MCP-DATA-018", Setup, "A workbook over the size or cell limits", [];
    NotAWorkbook = "MCP-DATA-019", Setup, "The file is not a readable workbook", [];
    RequiredValue = "MCP-DATA-020", Setup, "A required value is missing", [];
    WrongType = "MCP-DATA-021", Setup, "A value is not of its column's type", [];
    NotAllowed = "MCP-DATA-022", Setup, "A value is not one of the allowed values", [];
    BadSample = "MCP-DATA-023", Setup, "A sample number below 1", [];
    JoinWithoutOn = "MCP-DATA-024", Setup, "A join without `on`", [];
    CsvFieldTooLarge = "MCP-DATA-026", Setup, "A CSV field larger than 1 MiB", [];
    TooManyColumns = "MCP-DATA-027", Setup, "More than 1000 CSV columns", [];
    TooManyRecords = "MCP-DATA-028", Setup, "More than 1,000,000 rows in a file or query result", [];
    YamlAliases = "MCP-DATA-029", Setup, "YAML data with too many aliases or too deep", [];
    YamlTooLarge = "MCP-DATA-030", Setup, "YAML data with more than 100,000 nodes", [];
    UnsafeYamlKey = "MCP-DATA-031", Setup, "YAML data with a refused key", [];
    DataUnreadable = "MCP-DATA-032", Setup, "The data file cannot be read", [];
    DataSyntax = "MCP-DATA-033", Setup, "The data is not valid CSV, JSON, YAML or UTF-8", [];
    CsvFieldCount = "MCP-DATA-034", Setup, "A CSV row with another number of fields than the header", [];
    DataUnreachable = "MCP-DATA-035", Environment, "The data host or database is unreachable or too slow", [];
    PluginOutputTooLarge = "MCP-DATA-036", Setup, "A plugin printed more than 10 MiB", [];
    QueryFailed = "MCP-DATA-037", Setup, "The SQL query failed", [];
    BadPattern = "MCP-DATA-038", Setup, "A `matches` pattern is not a regular expression", [];
    UnknownDataSource = "MCP-DATA-039", Setup, "A test names an undeclared data source", [];
    ProviderNotBuilt = "MCP-DATA-040", Setup, "A data provider this build of mcpr leaves out", [];
    PluginCommand = "MCP-EXT-103", Setup, "A plugin source without a command", [];
    PluginNotRows = "MCP-EXT-104", Setup, "The plugin's output is not a list of rows", [];
    PluginTimeout = "MCP-EXT-105", Environment, "The plugin did not finish in time", [];
    PluginNotJson = "MCP-EXT-106", Setup, "The plugin's output is not JSON", [];
    PluginFailed = "MCP-EXT-107", Setup, "The plugin could not start or exited with an error", [];
    PluginCrashed = "MCP-EXT-108", Environment, "The plugin was killed by a signal", [];
    // Retired codes of the first implementation.
    QaLang = "QA-LANG-001", Retired, "Compile error (the first implementation's catch-all)", [];
    QaFlowUnknown = "QA-FLOW-001", Retired, "Unknown flow (first implementation)", [];
    QaFlowRecursive = "QA-FLOW-002", Retired, "Recursive flow (first implementation)", [];
    QaDataUnknownSource = "QA-DATA-001", Retired, "Undeclared data source (first implementation)", [];
    QaDataTable = "QA-DATA-002", Retired, "Inline table too short (first implementation)", [];
    QaDataBlock = "QA-DATA-003", Retired, "Data source block that is not a mapping (first implementation)", [];
    QaDataPhrase = "QA-DATA-004", Retired, "Unknown data phrase (first implementation)", [];
    InternalLegacy = "MCP-INTERNAL-000", Retired, "Unrecognised error (first implementation)", [];
    DataModule = "MCP-DATA-004", Retired, "JavaScript provider module (first implementation)", ["MCP-EXT-103", "MCP-DATA-012"];
    DataJoinKind = "MCP-DATA-025", Retired, "Bad join kind (first implementation)", ["MCPLANG503", "MCPLANG605"];
    McpExtension = "MCP-CONFIG-006", Retired, "A .mcp file refused (first implementation)", [];
    Connect = "MCP-CONNECT-001", Retired, "Error escaping a test (first implementation)", ["MCP-VAR-001", "MCP-CONFIG-001"];
    Page = "MCP-PAGE-001", Retired, "Repeated pagination cursor (first implementation)", ["MCP-PROTOCOL-007"];
    Cancel = "MCP-CANCEL-001", Retired, "Session closed during a wait (first implementation)", ["MCP-CLOSED-001"];
}

impl RunCode {
    /// Every code that replaces this code's first-implementation meaning: the `MCPLANG`
    /// codes whose `replaces` names it, then [`RunCode::also_replaced_by`]. Empty for a code
    /// that had no other meaning in the first implementation.
    pub fn replaced_by(self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Code::ALL
            .iter()
            .filter(|c| c.replaces() == self.as_str())
            .map(|c| c.as_str())
            .collect();
        for by in self.also_replaced_by() {
            if !out.contains(by) {
                out.push(by);
            }
        }
        out
    }

    /// Whether the first implementation used this code for another condition than mcpr's
    /// (or mcpr does not produce it at all): its page then has a section on that meaning.
    pub fn has_first_implementation_meaning(self) -> bool {
        self.class() == RunClass::Retired || !self.replaced_by().is_empty()
    }
}

impl std::fmt::Display for RunCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<RunCode> for &'static str {
    fn from(code: RunCode) -> &'static str {
        code.as_str()
    }
}

/// A code compares equal to its printed form (`code == "MCP-TIMEOUT-001"`).
impl PartialEq<&str> for RunCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for RunCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// Text that names no registered code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl UnknownCode {
    /// Whether the text looks like a compile diagnostic (`MCPLANG…` or a bare number).
    fn looks_like_mcplang(&self) -> bool {
        let t = self.0.trim();
        t.get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("MCPLANG"))
            || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
    }
}

impl std::fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.looks_like_mcplang() {
            write!(
                f,
                "`{}` is not a known diagnostic code (codes look like MCPLANG102; see docs/diagnostics/README.md)",
                self.0
            )
        } else {
            write!(
                f,
                "`{}` is not a known code: compile diagnostics look like MCPLANG102 (docs/diagnostics/README.md), run-time codes like MCP-TIMEOUT-001 and the first implementation's codes like QA-LANG-001 (docs/errors/README.md), lint rules like MCP005 (docs/lint/README.md); `mcpr explain --list` lists them all",
                self.0
            )
        }
    }
}

impl std::error::Error for UnknownCode {}

impl std::str::FromStr for RunCode {
    type Err = UnknownCode;

    /// Parses a code in any case: `MCP-TIMEOUT-001`, `mcp-timeout-001`, `qa-lang-001`.
    fn from_str(s: &str) -> Result<Self, UnknownCode> {
        let s = s.trim();
        RunCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownCode(s.to_string()))
    }
}

impl serde::Serialize for RunCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for RunCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in RunCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} is registered twice");
        }
    }

    #[test]
    fn codes_parse_in_any_case() {
        assert_eq!("MCP-EXIT-001".parse::<RunCode>(), Ok(RunCode::ServerExited));
        assert_eq!(
            " mcp-exit-001 ".parse::<RunCode>(),
            Ok(RunCode::ServerExited)
        );
        assert_eq!("qa-lang-001".parse::<RunCode>(), Ok(RunCode::QaLang));
        assert!(concat!("MCP-EXIT-", "999").parse::<RunCode>().is_err());
    }

    #[test]
    fn classes_map_to_exit_codes() {
        assert_eq!(
            RunCode::Assertion.class().exit_class(),
            Some(ExitClass::TestsFailed)
        );
        assert_eq!(
            RunCode::Blocked.class().exit_class(),
            Some(ExitClass::TestsFailed)
        );
        assert_eq!(
            RunCode::DuplicateId.class().exit_class(),
            Some(ExitClass::Usage)
        );
        assert_eq!(
            RunCode::ServerExited.class().exit_class(),
            Some(ExitClass::ServerFailure)
        );
        assert_eq!(
            RunCode::Internal.class().exit_class(),
            Some(ExitClass::ServerFailure)
        );
        assert_eq!(
            RunCode::DataUnreachable.class().exit_class(),
            Some(ExitClass::ServerFailure)
        );
        assert_eq!(RunCode::Skip.class().exit_class(), Some(ExitClass::Passed));
        assert_eq!(RunCode::QaLang.class().exit_class(), None);
        assert!(RunCode::Internal.class().stops_the_run());
        assert!(!RunCode::Assertion.class().stops_the_run());
    }

    #[test]
    fn legacy_codes_know_their_replacements() {
        let qa = RunCode::QaLang.replaced_by();
        assert!(
            qa.contains(&"MCPLANG204") && qa.contains(&"MCPLANG104"),
            "{qa:?}"
        );
        assert_eq!(RunCode::QaFlowUnknown.replaced_by(), vec!["MCPLANG401"]);
        // A live code that the compiler now reports earlier under an MCPLANG code.
        assert_eq!(RunCode::DuplicateId.replaced_by(), vec!["MCPLANG403"]);
        assert!(RunCode::DuplicateId.has_first_implementation_meaning());
        assert!(!RunCode::ServerExited.has_first_implementation_meaning());
    }
}
