//! The Suite IR: the one contract between the compiler and the runtime.
//!
//! Plain serde data whose field names and shapes are those of the `version: 1` YAML suite
//! model, plus optional mcpr additions (`irVersion`, `dataSources`, a test's `forEach`, a
//! step's `source` and `flow`). Every addition is left out of the JSON when empty, so a suite
//! written for the reference model deserialises and serialises back unchanged. The JSON Schema
//! in `docs/schema/suite.schema.json` describes exactly these types; `docs/ir.md` explains them.

/// `ALL` for a closed enum of unit variants: every value in the order of declaration, for
/// the code that lists them (the schema's closed sets are generated from these). A variant
/// left out of the list does not compile.
macro_rules! every_variant {
    ($t:ident: $($v:ident),+ $(,)?) => {
        impl $t {
            /// Every value, in the order of declaration.
            pub const ALL: [$t; [$(stringify!($v)),+].len()] = [$($t::$v),+];
        }

        const _: () = {
            #[allow(dead_code)]
            fn every_variant_is_listed(value: $t) {
                match value {
                    $($t::$v)|+ => {}
                }
            }
        };
    };
}

mod assert;
mod client;
mod data;
mod map;
mod native;
pub mod sets;
mod step;
mod target;
mod test_case;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use assert::{
    Assert, Assertion, ErrorExpectation, JsonAssertions, JsonType, SnapshotAssertion, Status,
};
pub use client::{
    ClientBehavior, ElicitationAnswer, NamedRoot, Root, SamplingAnswer, ScriptedElicitation,
    ScriptedSampling,
};
pub use data::{
    Column, ColumnType, DataSource, ForEach, ForEachFile, ForEachRows, ForEachSource, JoinKind,
    Provider, Sample, SampleEvery, SampleFirst, SampleLast, SampleRandom, WhereCondition,
    WhereOperators,
};
pub use map::OrderedMap;
pub use native::{
    AwaitNotificationAction, CheckAction, ConfigureClientAction, EchoAction, LintCleanAction,
    ListAllAction, LogLevelAction, Members, NativeAction, NativeStep, PlainAction, PromptAction,
    QueueAnswerAction, RequestAction, ResourceAction, SaveTextAction, TaskAction, TaskListAction,
    TaskWaitAction, ToolsSnapshotAction,
};
pub use step::{
    Aggregate, Export, Fault, FaultKind, FlowFrame, Phase, RequestStep, SetStep, SourceLocation,
    Step, StepKind, TaskMode, ToolStep,
};
pub use target::{
    HttpTarget, InheritEnv, OAuth, OAuthGrant, OAuthIdp, OAuthSettings, StdioTarget, Target,
    TokenEndpointAuth,
};
pub use test_case::{Requirements, Skip, Test};

/// Version of the IR layout that mcpr writes into `irVersion`.
pub const IR_VERSION: u32 = 1;

/// `$id` of the JSON Schema describing this IR.
pub const SCHEMA_ID: &str = "https://mcpr.dev/schema/suite-1.json";

/// The JSON Schema itself (`docs/schema/suite.schema.json`), compiled in so `mcpr schema`
/// prints it and YAML suites are validated against it anywhere.
pub const SCHEMA_TEXT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/embedded/schema/suite.schema.json"
));

/// A whole suite: targets, suite-wide settings, data sources and tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Suite {
    /// Suite format version; always `1`.
    pub version: FormatVersion,
    /// Version of the IR layout (mcpr addition; absent in hand-written YAML, written by mcpr).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ir_version: Option<u32>,
    /// Suite name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Server that tests run against unless they name another. Absent only in suites
    /// compiled from legacy `.mcp` scripts, which name no server: the runner then needs one
    /// from its command line (mcpr relaxation; the reference model requires it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Servers compared by a parity run (at least two; the first is the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<OrderedMap<Target>>,
    /// Named servers of a composition (at least two), chosen per test with `server`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<OrderedMap<Target>>,
    /// Suite-wide defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<Defaults>,
    /// Latency budgets checked after the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<Vec<Budget>>,
    /// Secret strings kept out of every output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redact: Option<Vec<String>>,
    /// The least coverage in percent (0–100) of the advertised tools, resources, resource
    /// templates and prompts the run must exercise; below it the run fails (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_coverage: Option<f64>,
    /// Snapshot store settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<Snapshots>,
    /// How the client answers server requests (`roots`, `sampling`, `elicitation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientBehavior>,
    /// The tests, at least one.
    pub tests: Vec<Test>,
    /// Custom function modules and what they may do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Extensions>,
    /// Named data sources used by `forEach` (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_sources: Option<OrderedMap<DataSource>>,
}

impl Suite {
    /// A suite as mcpr writes it: `version: 1`, the current `irVersion`, one target, the tests.
    pub fn new(target: Target, tests: Vec<Test>) -> Self {
        Self {
            target: Some(target),
            ..Self::without_target(tests)
        }
    }

    /// A suite that names no server (a legacy `.mcp` script): the runner needs one from its
    /// command line.
    pub fn without_target(tests: Vec<Test>) -> Self {
        Self {
            version: FormatVersion,
            ir_version: Some(IR_VERSION),
            name: None,
            target: None,
            targets: None,
            servers: None,
            defaults: None,
            budgets: None,
            redact: None,
            minimum_coverage: None,
            snapshots: None,
            client: None,
            tests,
            extensions: None,
            data_sources: None,
        }
    }
}

/// The suite format version, which can only be `1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct FormatVersion;

impl TryFrom<u64> for FormatVersion {
    type Error = String;

    fn try_from(value: u64) -> Result<Self, String> {
        if value == 1 {
            Ok(Self)
        } else {
            Err(format!("unsupported suite version {value}, expected 1"))
        }
    }
}

impl From<FormatVersion> for u64 {
    fn from(_: FormatVersion) -> Self {
        1
    }
}

/// Suite-wide defaults.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Defaults {
    /// Default deadline of a request in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How long a server may take to exit after its stdin closes before it is ended, in
    /// milliseconds (0–60000; mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shutdown_grace_ms: Option<u64>,
    /// How many times a failed or errored test is run again when neither the test nor the
    /// run says (mcpr addition; 0–100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    /// Whether tests share sessions (mcpr addition; absent: a session per test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionMode>,
}

/// How the tests of a suite get their sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SessionMode {
    /// Every test opens a session of its own (the default).
    PerTest,
    /// Tests on the same server run one after another in one session, reset between them;
    /// a data row or an `isolated` test keeps a session of its own.
    Shared,
}
every_variant!(SessionMode: PerTest, Shared);

/// A latency budget: a percentile of a test's durations must stay under a limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    /// Test name, or `*` for every test.
    pub test: String,
    /// Percentile to measure (1–100).
    pub percentile: u32,
    /// Limit in milliseconds (at least 1).
    pub max_ms: u64,
    /// Number of most recent samples considered (1–1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
}

/// Snapshot store settings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshots {
    /// Snapshot file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Paths (starting with `$`) removed from every snapshot before comparing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
}

/// Custom function modules.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Extensions {
    /// Module paths providing functions for `set` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<String>>,
    /// Capabilities granted to the modules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<Permission>>,
    /// The only module paths that may be loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowlist: Option<Vec<String>>,
    /// Load modules directly instead of in an isolated worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsafe_legacy: Option<bool>,
}

/// A capability that custom code may be granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// Read environment variables.
    Environment,
    /// Read files.
    FilesystemRead,
    /// Open network connections.
    Network,
}
every_variant!(Permission: Environment, FilesystemRead, Network);

/// Deserialises a member that is present as `Some`, even when its value is `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}
