//! The commands of the language: one [`Command`] per command word, with its argument counts,
//! usage and whether it talks to the server, and [`Legacy::command`], which hands each
//! command to the function that lowers it.

use super::lex::Word;
use super::{Legacy, Lowered};
use crate::ir::{NativeAction, NativeStep, RequestStep, StepKind, TaskMode};

/// What a command takes and does: its word, the least and most arguments, its usage, and
/// whether it talks to the server (only those take `expect_error` and `timeout`).
pub(super) struct Spec {
    /// The command word.
    pub name: &'static str,
    /// Fewest arguments.
    pub min: usize,
    /// Most arguments (`None`: any number).
    pub max: Option<usize>,
    /// How the command is written.
    pub usage: &'static str,
    /// Whether the command talks to the server.
    pub sends: bool,
}

/// Declares [`Command`], its [`Spec`]s and the list of all commands from one table.
macro_rules! commands {
    ($( $variant:ident = $name:literal, $min:literal..$max:expr, $usage:literal, $sends:ident; )*) => {
        /// A command of the language.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(super) enum Command {
            $(
                #[doc = $usage]
                $variant,
            )*
        }

        impl Command {
            /// Every command, in the order of the table.
            pub(super) const ALL: &[Command] = &[$(Command::$variant),*];

            /// What the command takes and does.
            pub(super) fn spec(self) -> Spec {
                match self {
                    $(Command::$variant => Spec {
                        name: $name,
                        min: $min,
                        max: $max,
                        usage: $usage,
                        sends: commands!(@sends $sends),
                    },)*
                }
            }
        }
    };
    (@sends sends) => { true };
    (@sends local) => { false };
}

commands! {
    Echo = "echo", 0..None, "echo [text…]", local;
    CallTool = "call_tool", 1..None, "call_tool <tool> [value…] [name:value…]", sends;
    CallToolRaw = "call_tool_raw", 1..Some(2), "call_tool_raw <tool> '<json object>'", sends;
    Ping = "ping", 0..Some(0), "ping", sends;
    Logging = "logging", 1..Some(1), "logging <level>", sends;
    SetVar = "set_var", 2..Some(2), "set_var <name> <path>", local;
    InputVar = "input_var", 1..Some(2), "input_var <name> [\"prompt\"]", local;
    AssertContains = "assert_contains", 1..Some(2), "assert_contains [value] <expected>", local;
    AssertEquals = "assert_equals", 1..Some(2), "assert_equals [value] <expected>", local;
    AssertNumber = "assert_number", 1..Some(1), "assert_number <value>", local;
    AssertGt = "assert_gt", 2..Some(2), "assert_gt <value> <than>", local;
    AssertStringLength = "assert_string_length", 3..Some(3),
        "assert_string_length <value> <min> <max>", local;
    AssertToolError = "assert_tool_error", 0..Some(0), "assert_tool_error", local;
    AssertErrorCode = "assert_error_code", 1..Some(1), "assert_error_code <code|tool>", local;
    Complete = "complete", 2..Some(3),
        "complete <prompt:name|resource:uri> <argument> [value]", sends;
    ElicitResponse = "elicit_response", 1..Some(2),
        "elicit_response <accept|decline|cancel> ['<json object>']", local;
    SampleResponse = "sample_response", 1..Some(1), "sample_response <text>", local;
    AddRoot = "add_root", 1..Some(2), "add_root <uri> [name]", local;
    AssertElicited = "assert_elicited", 1..Some(1), "assert_elicited <text>", local;
    AssertSampled = "assert_sampled", 1..Some(1), "assert_sampled <text>", local;
    Subscribe = "subscribe", 1..Some(1), "subscribe <uri>", sends;
    WaitNotification = "wait_notification", 1..Some(3),
        "wait_notification <kind> [uri] [duration]", sends;
    CallTask = "call_task", 1..None, "call_task <tool> [value…] [name:value…]", sends;
    StartTask = "start_task", 1..None, "start_task <tool> [value…] [name:value…]", sends;
    WaitTask = "wait_task", 1..Some(2), "wait_task <id> [duration]", sends;
    WaitTaskStatus = "wait_task_status", 2..Some(3),
        "wait_task_status <id> <status> [duration]", sends;
    GetTask = "get_task", 1..Some(1), "get_task <id>", sends;
    CancelTask = "cancel_task", 1..Some(1), "cancel_task <id>", sends;
    AssertTaskStatus = "assert_task_status", 1..Some(1), "assert_task_status <status>", local;
    ListSkills = "list_skills", 0..Some(0), "list_skills", sends;
    VerifySkills = "verify_skills", 0..Some(0), "verify_skills", sends;
    VerifyApps = "verify_apps", 0..Some(0), "verify_apps", sends;
}

impl Command {
    /// The command a word names (exactly, as mcp-tester reads it).
    pub(super) fn parse(word: &str) -> Option<Command> {
        Command::ALL.iter().copied().find(|c| c.spec().name == word)
    }

    /// The command word.
    pub(super) fn name(self) -> &'static str {
        self.spec().name
    }
}

impl Legacy<'_> {
    /// The action (and the checks of a `check` step) of one command whose arguments have
    /// been counted.
    pub(super) fn command(&mut self, command: Command, args: &[Word]) -> Option<Lowered> {
        use Command::*;
        let native = |n: NativeStep| (StepKind::native(n), None);
        Some(match command {
            Echo => self.echo(args),
            CallTool | CallTask | StartTask => {
                let mut tool = self.tool_call(&args[0], &args[1..])?;
                tool.task = match command {
                    CallTask => Some(TaskMode::Run),
                    StartTask => Some(TaskMode::Start),
                    _ => None,
                };
                (StepKind::Tool(tool), None)
            }
            CallToolRaw => self.call_tool_raw(args)?,
            Ping => (
                StepKind::Request(RequestStep {
                    method: "ping".into(),
                    params: None,
                }),
                None,
            ),
            Logging => self.logging(&args[0])?,
            SetVar => self.set_var(args)?,
            InputVar => self.input_var(args)?,
            AssertContains | AssertEquals => self.assert_text(command, args)?,
            AssertNumber => self.assert_number(&args[0]),
            AssertGt => self.assert_gt(&args[0], &args[1]),
            AssertStringLength => self.assert_string_length(args)?,
            AssertToolError => super::checks::tool_error_check(),
            AssertErrorCode => self.assert_error_code(&args[0])?,
            Complete => self.complete(args)?,
            ElicitResponse => self.elicit_response(args)?,
            SampleResponse => self.sample_response(&args[0]),
            AddRoot => self.add_root(args),
            AssertElicited => self.assert_received("$.elicited", &args[0]),
            AssertSampled => self.assert_received("$.sampled", &args[0]),
            Subscribe => self.subscribe(&args[0]),
            WaitNotification => self.wait_notification(args)?,
            WaitTask => self.wait_task(command, &args[0], None, &args[1..])?,
            WaitTaskStatus => self.wait_task(command, &args[0], Some(&args[1]), &args[2..])?,
            GetTask | CancelTask => self.task(command, &args[0]),
            AssertTaskStatus => self.assert_task_status(&args[0])?,
            ListSkills => native(NativeStep::new(NativeAction::SkillsList)),
            VerifySkills => native(NativeStep::new(NativeAction::SkillsVerify)),
            VerifyApps => native(NativeStep::new(NativeAction::AppsVerify)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_word_names_its_command() {
        for &c in Command::ALL {
            assert_eq!(Command::parse(c.name()), Some(c));
            let spec = c.spec();
            assert!(spec.max.is_none_or(|m| m >= spec.min), "{}", spec.name);
            assert!(spec.usage.starts_with(spec.name), "{}", spec.usage);
        }
        assert_eq!(Command::parse("CALL_TOOL"), None);
        assert_eq!(Command::parse("expect_error"), None);
    }
}
