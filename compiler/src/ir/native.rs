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

/// Declares the native actions from one list: [`NativeStep`] (an action with its members),
/// [`NativeAction`] (the action alone), [`NativeAction::ALL`], and the conversions between
/// them. Each row names the variant and the struct of its members; what the members are is
/// told by the struct's [`Members`] implementation below it.
macro_rules! native_actions {
    ($( $(#[doc = $doc:literal])* $variant:ident($members:ident), )*) => {
        /// An MCP-specific action such as waiting for a notification or listing every page.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "action", rename_all = "kebab-case")]
        pub enum NativeStep {
            $( $(#[doc = $doc])* $variant($members), )*
        }

        /// The native actions the runner knows, without their members.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum NativeAction {
            $( #[doc = concat!("[`NativeStep::", stringify!($variant), "`].")] $variant, )*
        }

        impl NativeAction {
            /// Every native action, in the order of their declaration.
            pub const ALL: [NativeAction; [$(stringify!($variant)),*].len()] =
                [$(NativeAction::$variant),*];
        }

        impl NativeStep {
            /// A native step performing `action` with every member left out.
            pub fn new(action: NativeAction) -> Self {
                match action {
                    $( NativeAction::$variant => NativeStep::$variant($members::default()), )*
                }
            }

            /// The action the step performs.
            pub fn action(&self) -> NativeAction {
                match self {
                    $( NativeStep::$variant(_) => NativeAction::$variant, )*
                }
            }

            /// The members of the step, whatever its action.
            pub fn members(&self) -> &dyn Members {
                match self {
                    $( NativeStep::$variant(m) => m, )*
                }
            }

            /// The members of the step, to change them.
            pub fn members_mut(&mut self) -> &mut dyn Members {
                match self {
                    $( NativeStep::$variant(m) => m, )*
                }
            }
        }
    };
}

native_actions! {
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

/// What a native step's members are, whatever its action. Each member struct overrides the
/// accessors of the members it has (through `members!`); the others answer `None`.
pub trait Members {
    /// The deadline of the action in milliseconds (every action has one).
    fn timeout_ms(&self) -> Option<u64>;
    /// The deadline of the action, to change it.
    fn timeout_ms_mut(&mut self) -> &mut Option<u64>;
    /// The `method` member.
    fn method(&self) -> Option<&str> {
        None
    }
    /// The `params` member.
    fn params(&self) -> Option<&Value> {
        None
    }
    /// The `uri` member.
    fn uri(&self) -> Option<&str> {
        None
    }
    /// The `level` member.
    fn level(&self) -> Option<&str> {
        None
    }
    /// The `field` member.
    fn field(&self) -> Option<&str> {
        None
    }
    /// The `taskId` member.
    fn task_id(&self) -> Option<&str> {
        None
    }
    /// The `behavior` member.
    fn behavior(&self) -> Option<&ClientBehavior> {
        None
    }
    /// The `progress` member.
    fn progress(&self) -> Option<bool> {
        None
    }
    /// The `cancelAfterMs` member.
    fn cancel_after_ms(&self) -> Option<u64> {
        None
    }
    /// The `message` member.
    fn message(&self) -> Option<&str> {
        None
    }
    /// The `variable` member.
    fn variable(&self) -> Option<&str> {
        None
    }
    /// The `status` member.
    fn status(&self) -> Option<&str> {
        None
    }
}

/// One accessor of [`Members`], by the member's name.
macro_rules! member {
    (params) => {
        fn params(&self) -> Option<&Value> {
            self.params.as_ref()
        }
    };
    (behavior) => {
        fn behavior(&self) -> Option<&ClientBehavior> {
            self.behavior.as_ref()
        }
    };
    (progress) => {
        fn progress(&self) -> Option<bool> {
            self.progress
        }
    };
    (cancel_after_ms) => {
        fn cancel_after_ms(&self) -> Option<u64> {
            self.cancel_after_ms
        }
    };
    ($text:ident) => {
        fn $text(&self) -> Option<&str> {
            self.$text.as_deref()
        }
    };
}

/// [`Members`] for a member struct: the deadline, and the accessors of the members it has
/// besides (a member named here that the struct lacks does not compile).
macro_rules! members {
    ($($t:ty: [$($m:ident),*];)*) => {$(
        impl Members for $t {
            fn timeout_ms(&self) -> Option<u64> {
                self.timeout_ms
            }
            fn timeout_ms_mut(&mut self) -> &mut Option<u64> {
                &mut self.timeout_ms
            }
            $(member!($m);)*
        }
    )*};
}

members! {
    RequestAction: [method, params, progress, cancel_after_ms];
    AwaitNotificationAction: [method, params];
    ResourceAction: [uri];
    LogLevelAction: [level];
    ListAllAction: [method, params, field];
    TaskAction: [params, task_id];
    TaskListAction: [params];
    PlainAction: [];
    LintCleanAction: [];
    ToolsSnapshotAction: [];
    ConfigureClientAction: [behavior];
    EchoAction: [message];
    PromptAction: [message, variable];
    QueueAnswerAction: [method, params];
    CheckAction: [params];
    SaveTextAction: [params, variable];
    TaskWaitAction: [task_id, status];
}

impl NativeStep {
    /// The deadline of the action in milliseconds (every action has one).
    pub fn timeout_ms(&self) -> Option<u64> {
        self.members().timeout_ms()
    }

    /// The deadline of the action, to change it.
    pub fn timeout_ms_mut(&mut self) -> &mut Option<u64> {
        self.members_mut().timeout_ms_mut()
    }

    /// The `method` member, for the actions that have one; `None` for the others.
    pub fn method(&self) -> Option<&str> {
        self.members().method()
    }

    /// The `params` member, for the actions that have one; `None` for the others.
    pub fn params(&self) -> Option<&Value> {
        self.members().params()
    }

    /// The `uri` member, for the actions that have one; `None` for the others.
    pub fn uri(&self) -> Option<&str> {
        self.members().uri()
    }

    /// The `level` member, for the actions that have one; `None` for the others.
    pub fn level(&self) -> Option<&str> {
        self.members().level()
    }

    /// The `field` member, for the actions that have one; `None` for the others.
    pub fn field(&self) -> Option<&str> {
        self.members().field()
    }

    /// The `task_id` member, for the actions that have one; `None` for the others.
    pub fn task_id(&self) -> Option<&str> {
        self.members().task_id()
    }

    /// The `behavior` member, for the actions that have one; `None` for the others.
    pub fn behavior(&self) -> Option<&ClientBehavior> {
        self.members().behavior()
    }

    /// The `progress` member, for the actions that have one; `None` for the others.
    pub fn progress(&self) -> Option<bool> {
        self.members().progress()
    }

    /// The `cancel_after_ms` member, for the actions that have one; `None` for the others.
    pub fn cancel_after_ms(&self) -> Option<u64> {
        self.members().cancel_after_ms()
    }

    /// The `message` member, for the actions that have one; `None` for the others.
    pub fn message(&self) -> Option<&str> {
        self.members().message()
    }

    /// The `variable` member, for the actions that have one; `None` for the others.
    pub fn variable(&self) -> Option<&str> {
        self.members().variable()
    }

    /// The `status` member, for the actions that have one; `None` for the others.
    pub fn status(&self) -> Option<&str> {
        self.members().status()
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
    fn every_member_an_action_reads_is_answered_by_its_accessor() {
        let samples = [
            ("method", json!("m")),
            ("params", json!({})),
            ("uri", json!("u")),
            ("level", json!("debug")),
            ("field", json!("tools")),
            ("taskId", json!("t")),
            ("behavior", json!({})),
            ("progress", json!(true)),
            ("cancelAfterMs", json!(5)),
            ("message", json!("hi")),
            ("variable", json!("v")),
            ("status", json!("completed")),
        ];
        for action in NativeAction::ALL {
            let name = serde_json::to_value(action).unwrap();
            for (member, value) in &samples {
                let doc = json!({"action": name, *member: value});
                let Ok(step) = serde_json::from_value::<NativeStep>(doc) else {
                    continue;
                };
                let m = step.members();
                let answered = match *member {
                    "method" => m.method().is_some(),
                    "params" => m.params().is_some(),
                    "uri" => m.uri().is_some(),
                    "level" => m.level().is_some(),
                    "field" => m.field().is_some(),
                    "taskId" => m.task_id().is_some(),
                    "behavior" => m.behavior().is_some(),
                    "progress" => m.progress().is_some(),
                    "cancelAfterMs" => m.cancel_after_ms().is_some(),
                    "message" => m.message().is_some(),
                    "variable" => m.variable().is_some(),
                    _ => m.status().is_some(),
                };
                assert!(answered, "{name} reads `{member}` but `members!` omits it");
            }
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
