//! The commands that talk to the server: tool calls with raw arguments, logging,
//! completion, subscriptions, notifications and tasks.

use serde_json::{Map, Value, json};

use super::commands::Command;
use super::lex::{Piece, Word};
use super::words::{looks_like_duration, parse_ms};
use super::{DEFAULT_NOTIFICATION_WAIT_MS, Legacy, Lowered, TASK_STATUSES};
use crate::diagnostics::Problem;
use crate::ir::sets::LOG_LEVELS as LEVELS;
use crate::ir::{self, NativeStep, RequestStep, StepKind, ToolStep};

impl Legacy<'_> {
    /// `call_tool_raw <tool> '<json object>'`.
    pub(super) fn call_tool_raw(&mut self, args: &[Word]) -> Option<Lowered> {
        let tool_name = self.template_of(&args[0].pieces);
        let arguments = match args.get(1) {
            Some(w) => match self.json_object(w) {
                Ok(o) => o,
                Err(reason) => {
                    self.bad(
                        Command::CallToolRaw.name(),
                        w.span,
                        format!("the arguments are not a JSON object: {reason}"),
                        "write the arguments as one quoted JSON object, e.g. '{\"a\": 1}'".into(),
                    );
                    return None;
                }
            },
            None => Map::new(),
        };
        let mut tool = ToolStep::new(tool_name);
        tool.arguments = Some(arguments);
        Some((StepKind::Tool(tool), None))
    }

    /// `logging <level>`.
    pub(super) fn logging(&mut self, level: &Word) -> Option<Lowered> {
        let name = Command::Logging.name();
        let text = self.literal(name, level, "log level")?;
        if !LEVELS.contains(&text.as_str()) {
            self.bad(
                name,
                level.span,
                format!("`{text}` is not a log level"),
                format!("use one of {}", LEVELS.join(", ")),
            );
            return None;
        }
        let n = NativeStep::SetLogLevel(ir::LogLevelAction {
            level: Some(text),
            timeout_ms: None,
        });
        Some((StepKind::native(n), None))
    }

    /// `complete <prompt:name|resource:uri> <argument> [value]`.
    pub(super) fn complete(&mut self, args: &[Word]) -> Option<Lowered> {
        let reference = &args[0];
        let kind = reference.pieces.first().and_then(|p| match p {
            Piece::Text(t) if t.starts_with("prompt:") => Some(true),
            Piece::Text(t) if t.starts_with("resource:") => Some(false),
            _ => None,
        });
        let Some(is_prompt) = kind else {
            self.bad(
                Command::Complete.name(),
                reference.span,
                format!(
                    "`{}` names neither a prompt nor a resource",
                    reference.text()
                ),
                "write `prompt:NAME` or `resource:URI`".into(),
            );
            return None;
        };
        let mut pieces = reference.pieces.clone();
        if let Some(Piece::Text(t)) = pieces.first_mut() {
            let cut = if is_prompt { 7 } else { 9 };
            *t = t[cut..].to_string();
        }
        let value = self.template_of(&pieces);
        let r = if is_prompt {
            json!({"type": "ref/prompt", "name": value})
        } else {
            json!({"type": "ref/resource", "uri": value})
        };
        let argument = self.template(&args[1]);
        let value = match args.get(2) {
            Some(w) => self.template(w),
            None => json!(""),
        };
        let request = RequestStep {
            method: "completion/complete".into(),
            params: Some(json!({
                "ref": r,
                "argument": {"name": argument, "value": value},
            })),
        };
        Some((StepKind::Request(request), None))
    }

    /// `subscribe <uri>`.
    pub(super) fn subscribe(&mut self, uri: &Word) -> Lowered {
        let n = NativeStep::Subscribe(ir::ResourceAction {
            uri: Some(self.template_of(&uri.pieces)),
            timeout_ms: None,
        });
        (StepKind::native(n), None)
    }

    /// `wait_notification <kind> [uri] [duration]`.
    pub(super) fn wait_notification(&mut self, args: &[Word]) -> Option<Lowered> {
        let kind = self.literal(
            Command::WaitNotification.name(),
            &args[0],
            "notification kind",
        )?;
        let method = if kind.starts_with("notifications/") {
            kind
        } else {
            format!("notifications/{kind}")
        };
        let mut rest = &args[1..];
        // The last argument is a duration when it reads as one.
        let mut wait = DEFAULT_NOTIFICATION_WAIT_MS;
        if let Some(last) = rest.last()
            && (rest.len() == 2 || looks_like_duration(&last.text()))
        {
            wait = self.duration(last)?;
            rest = &rest[..rest.len() - 1];
        }
        let params: Option<Value> = rest.first().map(|uri| json!({"uri": self.template(uri)}));
        let n = NativeStep::AwaitNotification(ir::AwaitNotificationAction {
            method: Some(method),
            params,
            timeout_ms: Some(wait),
        });
        Some((StepKind::native(n), None))
    }

    /// `wait_task <id> [duration]` and `wait_task_status <id> <status> [duration]`.
    pub(super) fn wait_task(
        &mut self,
        command: Command,
        id: &Word,
        status: Option<&Word>,
        rest: &[Word],
    ) -> Option<Lowered> {
        let mut n = ir::TaskWaitAction {
            task_id: Some(self.template_of(&id.pieces)),
            ..Default::default()
        };
        if let Some(w) = status {
            n.status = Some(self.task_status(command, w)?);
        }
        if let Some(d) = rest.first() {
            n.timeout_ms = Some(self.duration(d)?);
        }
        Some((StepKind::native(NativeStep::TaskWait(n)), None))
    }

    /// `get_task <id>` and `cancel_task <id>`.
    pub(super) fn task(&mut self, command: Command, id: &Word) -> Lowered {
        let task = ir::TaskAction {
            params: None,
            task_id: Some(self.template_of(&id.pieces)),
            timeout_ms: None,
        };
        let n = if command == Command::GetTask {
            NativeStep::TaskGet(task)
        } else {
            NativeStep::TaskCancel(task)
        };
        (StepKind::native(n), None)
    }

    /// A task status written as an argument of `command`.
    pub(super) fn task_status(&mut self, command: Command, w: &Word) -> Option<String> {
        let status = self.literal(command.name(), w, "task status")?;
        if !TASK_STATUSES.contains(&status.as_str()) {
            self.bad(
                command.name(),
                w.span,
                format!("`{status}` is not a task status"),
                format!("use one of {}", TASK_STATUSES.join(", ")),
            );
            return None;
        }
        Some(status)
    }

    /// A duration argument (`500`, `2s`, `1.5s`, `1m`) in milliseconds.
    fn duration(&mut self, w: &Word) -> Option<u64> {
        let ms = parse_ms(&w.text(), false).filter(|_| !w.has_vars());
        if ms.is_none() {
            self.report(
                Problem::LegacyBadTimeout {
                    text: w.raw.clone(),
                    prefix: false,
                    as_duration: None,
                },
                w.span,
            );
        }
        ms
    }
}
