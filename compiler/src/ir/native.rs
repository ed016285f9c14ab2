//! Native steps: the MCP-specific actions the runner performs itself. Each action is a
//! variant with exactly the members that action uses, so a member the runner would ignore
//! (a `level` on `subscribe`) is rejected when the IR is read. In JSON a native step is one
//! object: `action` first, then the action's members in a fixed order (`method`, `params`,
//! `uri`, `level`, `field`, `taskId`, `behavior`, `progress`, `cancelAfterMs`, `timeoutMs`,
//! `message`, `variable`, `status`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::ClientBehavior;
use super::present;

/// An MCP-specific action such as waiting for a notification or listing every page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum NativeStep {
    /// A request with optional progress collection and cancellation.
    Request(RequestAction),
    /// Wait for a notification with a given method; `params` filters on its members.
    AwaitNotification(AwaitNotificationAction),
    /// `resources/subscribe` of `uri`.
    Subscribe(ResourceAction),
    /// `resources/unsubscribe` of `uri`.
    Unsubscribe(ResourceAction),
    /// `logging/setLevel` to `level`.
    SetLogLevel(LogLevelAction),
    /// Follow every page of a list method, collecting the items of `field`.
    ListAll(ListAllAction),
    /// `tasks/get` of `taskId`.
    TaskGet(TaskAction),
    /// `tasks/list`.
    TaskList(TaskListAction),
    /// `tasks/cancel` of `taskId`.
    TaskCancel(TaskAction),
    /// Change how the client answers server requests from here on.
    ConfigureClient(ConfigureClientAction),
    /// Print `message` in the test's output (mcpr addition).
    Echo(EchoAction),
    /// Ask the person at the terminal for `variable`, showing `message`; fails when the run
    /// is not interactive (mcpr addition).
    Prompt(PromptAction),
    /// Queue the answer `params` for the next server request (or input request) of `method`:
    /// `elicitation/create` or `sampling/createMessage`; queued answers are used oldest
    /// first, before the client behaviour (mcpr addition).
    QueueAnswer(QueueAnswerAction),
    /// Check the value `params` (a template), or without `params` the previous response,
    /// with the step's `assert` (mcpr addition).
    Check(CheckAction),
    /// Save into `variable`, as text, the value at the first of the result paths `params`
    /// (a list) that is present in the previous response (mcpr addition).
    SaveText(SaveTextAction),
    /// Poll task `taskId` until it reaches `status` (or any final status) (mcpr addition).
    TaskWait(TaskWaitAction),
    /// `skills/list` (skills extension), yielding `{skills, count}` (mcpr addition).
    SkillsList(PlainAction),
    /// Read and check every skill (skills extension); fails on any violation (mcpr addition).
    SkillsVerify(PlainAction),
    /// Check every MCP App (ui extension): `ui://` resources, MIME type, HTML, CSP; fails on
    /// any violation (mcpr addition).
    AppsVerify(PlainAction),
    /// Apply the lint rules to the server's tools, resources, resource templates and
    /// prompts; fails on a finding at `failOn` level or worse (default `warning`) that
    /// `ignore` does not name (mcpr addition).
    LintClean(LintCleanAction),
    /// Compare the server's tools, resources, resource templates and prompts with the
    /// committed tool snapshot `file` (relative to the suite file); any change fails, or
    /// with `allowCompatible` only breaking ones (mcpr addition).
    ToolsSnapshot(ToolsSnapshotAction),
    /// Close the test's session (what is left of it) and open a new one to the same server
    /// with the same client behaviour; variables survive, the inbox starts empty
    /// (mcpr addition; docs/faults.md).
    Reconnect(PlainAction),
}

/// The native actions the runner knows, without their members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NativeAction {
    /// [`NativeStep::Request`].
    Request,
    /// [`NativeStep::AwaitNotification`].
    AwaitNotification,
    /// [`NativeStep::Subscribe`].
    Subscribe,
    /// [`NativeStep::Unsubscribe`].
    Unsubscribe,
    /// [`NativeStep::SetLogLevel`].
    SetLogLevel,
    /// [`NativeStep::ListAll`].
    ListAll,
    /// [`NativeStep::TaskGet`].
    TaskGet,
    /// [`NativeStep::TaskList`].
    TaskList,
    /// [`NativeStep::TaskCancel`].
    TaskCancel,
    /// [`NativeStep::ConfigureClient`].
    ConfigureClient,
    /// [`NativeStep::Echo`].
    Echo,
    /// [`NativeStep::Prompt`].
    Prompt,
    /// [`NativeStep::QueueAnswer`].
    QueueAnswer,
    /// [`NativeStep::Check`].
    Check,
    /// [`NativeStep::SaveText`].
    SaveText,
    /// [`NativeStep::TaskWait`].
    TaskWait,
    /// [`NativeStep::SkillsList`].
    SkillsList,
    /// [`NativeStep::SkillsVerify`].
    SkillsVerify,
    /// [`NativeStep::AppsVerify`].
    AppsVerify,
    /// [`NativeStep::LintClean`].
    LintClean,
    /// [`NativeStep::ToolsSnapshot`].
    ToolsSnapshot,
    /// [`NativeStep::Reconnect`].
    Reconnect,
}

impl NativeAction {
    /// Every native action, in the order of their declaration.
    pub const ALL: [NativeAction; 22] = [
        NativeAction::Request,
        NativeAction::AwaitNotification,
        NativeAction::Subscribe,
        NativeAction::Unsubscribe,
        NativeAction::SetLogLevel,
        NativeAction::ListAll,
        NativeAction::TaskGet,
        NativeAction::TaskList,
        NativeAction::TaskCancel,
        NativeAction::ConfigureClient,
        NativeAction::Echo,
        NativeAction::Prompt,
        NativeAction::QueueAnswer,
        NativeAction::Check,
        NativeAction::SaveText,
        NativeAction::TaskWait,
        NativeAction::SkillsList,
        NativeAction::SkillsVerify,
        NativeAction::AppsVerify,
        NativeAction::LintClean,
        NativeAction::ToolsSnapshot,
        NativeAction::Reconnect,
    ];
}

/// Members of `request`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestAction {
    /// JSON-RPC or notification method the action is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Collect progress notifications while the request runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<bool>,
    /// Cancel the request after this many milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_after_ms: Option<u64>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `await-notification`: `params` holds member values the notification must have.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AwaitNotificationAction {
    /// JSON-RPC or notification method the action is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `subscribe` and `unsubscribe`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceAction {
    /// Resource URI (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `set-log-level`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LogLevelAction {
    /// Log level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `list-all`: `params` are sent with every page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListAllAction {
    /// JSON-RPC or notification method the action is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Result member holding the items of each page, e.g. `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `task-get` and `task-cancel`. `params` is read (the documented form of the
/// task actions has it) but not sent: the request carries only the task id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskAction {
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Task id (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `task-list`. `params` is read (the documented form of the task actions has it)
/// but not sent: the runner lists every page from the first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskListAction {
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of the actions that take nothing but a deadline: `skills-list`, `skills-verify`,
/// `apps-verify`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlainAction {
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `lint-clean`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LintCleanAction {
    /// Lint rule codes not applied (`MCP005`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
    /// The least level that fails the step (default `warning`: warnings and errors fail,
    /// info is shown; `error` lets warnings pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<crate::lint_rules::Level>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl LintCleanAction {
    /// The `.mcpr` statement that writes these members (and the step's name).
    pub fn statement(&self) -> String {
        let mut s = String::from("Expect the server is lint clean");
        match self.fail_on {
            Some(crate::lint_rules::Level::Warning) => s.push_str(" including warnings"),
            Some(crate::lint_rules::Level::Info) => s.push_str(" including info"),
            Some(crate::lint_rules::Level::Error) => s.push_str(" only errors"),
            None => {}
        }
        if let Some(codes) = self.ignore.as_ref().filter(|c| !c.is_empty()) {
            s.push_str(" ignoring ");
            s.push_str(&codes.join(", "));
        }
        s
    }
}

/// Members of `tools-snapshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolsSnapshotAction {
    /// The snapshot file, as `mcpr snapshot` writes it, relative to the suite file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Only breaking changes fail; compatible ones are listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_compatible: Option<bool>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl ToolsSnapshotAction {
    /// The `.mcpr` statement that writes these members (and the step's name); `None` when
    /// the file name cannot be quoted on one line.
    pub fn statement(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        let quoted = if file.contains(['\n', '\r', '\t']) {
            return None;
        } else if !file.contains('"') {
            format!("\"{file}\"")
        } else if !file.contains('\'') {
            format!("'{file}'")
        } else {
            return None;
        };
        let mut s = format!("Expect the tools match snapshot {quoted}");
        if self.allow_compatible == Some(true) {
            s.push_str(" allowing compatible changes");
        }
        Some(s)
    }
}

/// Members of `configure-client`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigureClientAction {
    /// The new client behaviour (templates); absent members keep theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behavior: Option<ClientBehavior>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `echo`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EchoAction {
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Text of `echo`, question of `prompt` (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Members of `prompt`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptAction {
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Text of `echo`, question of `prompt` (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Variable written by the action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
}

/// Members of `queue-answer`: `method` is the server request answered, `params` the answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueueAnswerAction {
    /// JSON-RPC or notification method the action is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `check`: `params` is the value checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckAction {
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Members of `save-text`: `params` lists the result paths tried in turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveTextAction {
    /// Parameters, any JSON value (templates).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Value>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Variable written by the action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
}

/// Members of `task-wait`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskWaitAction {
    /// Task id (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Deadline of the action in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Task status to wait for; absent: any final status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Every variant with its member struct bound to `$m`, for code that is the same for all.
macro_rules! each_variant {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            NativeStep::Request($m) => $body,
            NativeStep::AwaitNotification($m) => $body,
            NativeStep::Subscribe($m) => $body,
            NativeStep::Unsubscribe($m) => $body,
            NativeStep::SetLogLevel($m) => $body,
            NativeStep::ListAll($m) => $body,
            NativeStep::TaskGet($m) => $body,
            NativeStep::TaskList($m) => $body,
            NativeStep::TaskCancel($m) => $body,
            NativeStep::ConfigureClient($m) => $body,
            NativeStep::Echo($m) => $body,
            NativeStep::Prompt($m) => $body,
            NativeStep::QueueAnswer($m) => $body,
            NativeStep::Check($m) => $body,
            NativeStep::SaveText($m) => $body,
            NativeStep::TaskWait($m) => $body,
            NativeStep::SkillsList($m) => $body,
            NativeStep::SkillsVerify($m) => $body,
            NativeStep::AppsVerify($m) => $body,
            NativeStep::LintClean($m) => $body,
            NativeStep::ToolsSnapshot($m) => $body,
            NativeStep::Reconnect($m) => $body,
        }
    };
}

impl NativeStep {
    /// A native step performing `action` with every member left out.
    pub fn new(action: NativeAction) -> Self {
        match action {
            NativeAction::Request => NativeStep::Request(RequestAction::default()),
            NativeAction::AwaitNotification => {
                NativeStep::AwaitNotification(AwaitNotificationAction::default())
            }
            NativeAction::Subscribe => NativeStep::Subscribe(ResourceAction::default()),
            NativeAction::Unsubscribe => NativeStep::Unsubscribe(ResourceAction::default()),
            NativeAction::SetLogLevel => NativeStep::SetLogLevel(LogLevelAction::default()),
            NativeAction::ListAll => NativeStep::ListAll(ListAllAction::default()),
            NativeAction::TaskGet => NativeStep::TaskGet(TaskAction::default()),
            NativeAction::TaskList => NativeStep::TaskList(TaskListAction::default()),
            NativeAction::TaskCancel => NativeStep::TaskCancel(TaskAction::default()),
            NativeAction::ConfigureClient => {
                NativeStep::ConfigureClient(ConfigureClientAction::default())
            }
            NativeAction::Echo => NativeStep::Echo(EchoAction::default()),
            NativeAction::Prompt => NativeStep::Prompt(PromptAction::default()),
            NativeAction::QueueAnswer => NativeStep::QueueAnswer(QueueAnswerAction::default()),
            NativeAction::Check => NativeStep::Check(CheckAction::default()),
            NativeAction::SaveText => NativeStep::SaveText(SaveTextAction::default()),
            NativeAction::TaskWait => NativeStep::TaskWait(TaskWaitAction::default()),
            NativeAction::SkillsList => NativeStep::SkillsList(PlainAction::default()),
            NativeAction::SkillsVerify => NativeStep::SkillsVerify(PlainAction::default()),
            NativeAction::AppsVerify => NativeStep::AppsVerify(PlainAction::default()),
            NativeAction::LintClean => NativeStep::LintClean(LintCleanAction::default()),
            NativeAction::ToolsSnapshot => {
                NativeStep::ToolsSnapshot(ToolsSnapshotAction::default())
            }
            NativeAction::Reconnect => NativeStep::Reconnect(PlainAction::default()),
        }
    }

    /// The action the step performs.
    pub fn action(&self) -> NativeAction {
        match self {
            NativeStep::Request(_) => NativeAction::Request,
            NativeStep::AwaitNotification(_) => NativeAction::AwaitNotification,
            NativeStep::Subscribe(_) => NativeAction::Subscribe,
            NativeStep::Unsubscribe(_) => NativeAction::Unsubscribe,
            NativeStep::SetLogLevel(_) => NativeAction::SetLogLevel,
            NativeStep::ListAll(_) => NativeAction::ListAll,
            NativeStep::TaskGet(_) => NativeAction::TaskGet,
            NativeStep::TaskList(_) => NativeAction::TaskList,
            NativeStep::TaskCancel(_) => NativeAction::TaskCancel,
            NativeStep::ConfigureClient(_) => NativeAction::ConfigureClient,
            NativeStep::Echo(_) => NativeAction::Echo,
            NativeStep::Prompt(_) => NativeAction::Prompt,
            NativeStep::QueueAnswer(_) => NativeAction::QueueAnswer,
            NativeStep::Check(_) => NativeAction::Check,
            NativeStep::SaveText(_) => NativeAction::SaveText,
            NativeStep::TaskWait(_) => NativeAction::TaskWait,
            NativeStep::SkillsList(_) => NativeAction::SkillsList,
            NativeStep::SkillsVerify(_) => NativeAction::SkillsVerify,
            NativeStep::AppsVerify(_) => NativeAction::AppsVerify,
            NativeStep::LintClean(_) => NativeAction::LintClean,
            NativeStep::ToolsSnapshot(_) => NativeAction::ToolsSnapshot,
            NativeStep::Reconnect(_) => NativeAction::Reconnect,
        }
    }

    /// The deadline of the action in milliseconds (every action has one).
    pub fn timeout_ms(&self) -> Option<u64> {
        each_variant!(self, m => m.timeout_ms)
    }

    /// The deadline of the action, to change it.
    pub fn timeout_ms_mut(&mut self) -> &mut Option<u64> {
        each_variant!(self, m => &mut m.timeout_ms)
    }

    /// The `method` member, for the actions that have one; `None` for the others.
    pub fn method(&self) -> Option<&str> {
        match self {
            NativeStep::Request(m) => m.method.as_deref(),
            NativeStep::AwaitNotification(m) => m.method.as_deref(),
            NativeStep::ListAll(m) => m.method.as_deref(),
            NativeStep::QueueAnswer(m) => m.method.as_deref(),
            _ => None,
        }
    }

    /// The `params` member, for the actions that have one; `None` for the others.
    pub fn params(&self) -> Option<&Value> {
        match self {
            NativeStep::Request(m) => m.params.as_ref(),
            NativeStep::AwaitNotification(m) => m.params.as_ref(),
            NativeStep::ListAll(m) => m.params.as_ref(),
            NativeStep::TaskGet(m) => m.params.as_ref(),
            NativeStep::TaskList(m) => m.params.as_ref(),
            NativeStep::TaskCancel(m) => m.params.as_ref(),
            NativeStep::QueueAnswer(m) => m.params.as_ref(),
            NativeStep::Check(m) => m.params.as_ref(),
            NativeStep::SaveText(m) => m.params.as_ref(),
            _ => None,
        }
    }

    /// The `uri` member, for the actions that have one; `None` for the others.
    pub fn uri(&self) -> Option<&str> {
        match self {
            NativeStep::Subscribe(m) => m.uri.as_deref(),
            NativeStep::Unsubscribe(m) => m.uri.as_deref(),
            _ => None,
        }
    }

    /// The `level` member, for the actions that have one; `None` for the others.
    pub fn level(&self) -> Option<&str> {
        match self {
            NativeStep::SetLogLevel(m) => m.level.as_deref(),
            _ => None,
        }
    }

    /// The `field` member, for the actions that have one; `None` for the others.
    pub fn field(&self) -> Option<&str> {
        match self {
            NativeStep::ListAll(m) => m.field.as_deref(),
            _ => None,
        }
    }

    /// The `task_id` member, for the actions that have one; `None` for the others.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            NativeStep::TaskGet(m) => m.task_id.as_deref(),
            NativeStep::TaskCancel(m) => m.task_id.as_deref(),
            NativeStep::TaskWait(m) => m.task_id.as_deref(),
            _ => None,
        }
    }

    /// The `behavior` member, for the actions that have one; `None` for the others.
    pub fn behavior(&self) -> Option<&ClientBehavior> {
        match self {
            NativeStep::ConfigureClient(m) => m.behavior.as_ref(),
            _ => None,
        }
    }

    /// The `progress` member, for the actions that have one; `None` for the others.
    pub fn progress(&self) -> Option<bool> {
        match self {
            NativeStep::Request(m) => m.progress,
            _ => None,
        }
    }

    /// The `cancel_after_ms` member, for the actions that have one; `None` for the others.
    pub fn cancel_after_ms(&self) -> Option<u64> {
        match self {
            NativeStep::Request(m) => m.cancel_after_ms,
            _ => None,
        }
    }

    /// The `message` member, for the actions that have one; `None` for the others.
    pub fn message(&self) -> Option<&str> {
        match self {
            NativeStep::Echo(m) => m.message.as_deref(),
            NativeStep::Prompt(m) => m.message.as_deref(),
            _ => None,
        }
    }

    /// The `variable` member, for the actions that have one; `None` for the others.
    pub fn variable(&self) -> Option<&str> {
        match self {
            NativeStep::Prompt(m) => m.variable.as_deref(),
            NativeStep::SaveText(m) => m.variable.as_deref(),
            _ => None,
        }
    }

    /// The `status` member, for the actions that have one; `None` for the others.
    pub fn status(&self) -> Option<&str> {
        match self {
            NativeStep::TaskWait(m) => m.status.as_deref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_action_comes_first_then_the_members_in_their_fixed_order() {
        for text in [
            r#"{"action":"request","method":"tools/call","params":{"name":"t"},"progress":true,"cancelAfterMs":5,"timeoutMs":9}"#,
            r#"{"action":"echo","timeoutMs":1,"message":"m"}"#,
            r#"{"action":"save-text","params":["$.a"],"timeoutMs":1,"variable":"v"}"#,
            r#"{"action":"task-wait","taskId":"t","timeoutMs":1,"status":"completed"}"#,
            r#"{"action":"task-get","params":{"x":1},"taskId":"t"}"#,
            r#"{"action":"check","params":null}"#,
            r#"{"action":"lint-clean","ignore":["MCP005"],"failOn":"warning","timeoutMs":1}"#,
            r#"{"action":"tools-snapshot","file":"tools.json","allowCompatible":true}"#,
        ] {
            let n: NativeStep = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&n).unwrap(), text);
        }
        let bare = serde_json::to_value(NativeStep::new(NativeAction::AppsVerify)).unwrap();
        assert_eq!(bare, json!({"action": "apps-verify"}));
    }

    #[test]
    fn a_member_the_action_does_not_use_is_rejected() {
        for doc in [
            json!({"action": "subscribe", "uri": "u", "level": "debug"}),
            json!({"action": "echo", "params": {}}),
            json!({"action": "skills-list", "method": "x"}),
            json!({"action": "frobnicate"}),
            json!({"method": "x"}),
        ] {
            assert!(
                serde_json::from_value::<NativeStep>(doc.clone()).is_err(),
                "{doc}"
            );
        }
    }

    #[test]
    fn every_action_reads_back_as_itself() {
        for action in NativeAction::ALL {
            let mut n = NativeStep::new(action);
            assert_eq!(n.action(), action);
            *n.timeout_ms_mut() = Some(7);
            assert_eq!(n.timeout_ms(), Some(7));
            let back: NativeStep =
                serde_json::from_value(serde_json::to_value(&n).unwrap()).unwrap();
            assert_eq!(back, n);
        }
    }
}
