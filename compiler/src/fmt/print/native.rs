//! The phrases of native actions.

use super::*;

pub(super) type Head<'a> = (String, Option<&'a Map<String, Value>>, Option<bool>);

pub(super) fn native<'a>(
    n: &'a NativeStep,
    name: &StepName<'_>,
    cleanup: Option<bool>,
) -> Option<Head<'a>> {
    // A phrase fits when the action has exactly the members the phrase writes. `Wait up to`
    // sets a native action's own deadline; it is printed with the modifiers.
    match n {
        NativeStep::Request(r) => {
            let (tool, args) = name_and_arguments(r.params.as_ref())?;
            if r.method.as_deref() != Some("tools/call")
                || r.progress != Some(true)
                || !name.fits(&format!("{} with progress", named("Call tool", tool)))
            {
                return None;
            }
            let cancel = match r.cancel_after_ms {
                Some(ms) => format!(" and cancel after {}", duration(ms)?),
                None => String::new(),
            };
            Some((
                format!("Call tool {} with progress{cancel}", qname(tool)?),
                args,
                None,
            ))
        }
        NativeStep::AwaitNotification(a) => {
            let method = a.method.as_deref()?;
            let mut phrase_name = named("Wait for notification", method);
            let mut conditions = String::new();
            match &a.params {
                None => {}
                Some(Value::Object(m)) if !m.is_empty() => {
                    for (i, (path, value)) in m.iter().enumerate() {
                        let written = condition_value(value)?;
                        let shown = match value {
                            Value::String(t) => t.clone(),
                            other => other.to_string(),
                        };
                        let and = if i == 0 { " where " } else { " and " };
                        conditions.push_str(&format!("{and}{} equals {written}", qname(path)?));
                        phrase_name.push_str(&format!(
                            "{and}\u{201c}{path}\u{201d} equals \u{201c}{shown}\u{201d}"
                        ));
                    }
                }
                Some(_) => return None,
            }
            if !name.fits(&phrase_name) {
                return None;
            }
            let within = duration(a.timeout_ms?)?;
            Some((
                format!(
                    "Wait for notification {}{conditions} within {within}",
                    qname(method)?
                ),
                None,
                cleanup,
            ))
        }
        NativeStep::Subscribe(r) | NativeStep::Unsubscribe(r) => {
            let uri = r.uri.as_deref()?;
            let sub = matches!(n, NativeStep::Subscribe(_));
            let verb = if sub {
                "Subscribe to"
            } else {
                "Unsubscribe from"
            };
            if !name.fits(&named(verb, uri)) {
                return None;
            }
            Some((
                format!("{verb} resource {}", qname(uri)?),
                None,
                if sub { None } else { cleanup },
            ))
        }
        NativeStep::SetLogLevel(l) => {
            let level = l.level.as_deref()?;
            if !name.fits(&format!("Set log level to {level}")) {
                return None;
            }
            Some((
                format!("Set log level to {}", rest_text(level)?),
                None,
                None,
            ))
        }
        NativeStep::ListAll(a) => {
            let what = match (a.method.as_deref()?, a.field.as_deref()?) {
                ("tools/list", "tools") => "tools",
                ("resources/list", "resources") => "resources",
                ("prompts/list", "prompts") => "prompts",
                ("resources/templates/list", "resourceTemplates") => "resource templates",
                _ => return None,
            };
            if !name.fits(&format!("List all {what}")) || a.params.is_some() {
                return None;
            }
            Some((format!("List all {what}"), None, None))
        }
        NativeStep::TaskGet(t) | NativeStep::TaskCancel(t) => {
            let task = t.task_id.as_deref()?;
            let verb = if matches!(n, NativeStep::TaskGet(_)) {
                "Get task"
            } else {
                "Cancel task"
            };
            if t.params.is_some() || !name.fits(&named(verb, task)) {
                return None;
            }
            Some((format!("{verb} {}", qname(task)?), None, None))
        }
        NativeStep::Reconnect(_) => name
            .fits("Reconnect")
            .then(|| ("Reconnect".into(), None, None)),
        NativeStep::TaskList(l) => (l.params.is_none() && name.fits("List tasks"))
            .then(|| ("List tasks".into(), None, None)),
        NativeStep::LintClean(a) => {
            let text = a.statement();
            // Codes are written as the lowering writes them: upper case, no separators.
            let codes_fit = a.ignore.iter().flatten().all(|c| {
                !c.is_empty()
                    && c.chars()
                        .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit())
            }) && a.ignore.as_ref().is_none_or(|c| !c.is_empty());
            (codes_fit && name.fits(&text)).then_some((text, None, None))
        }
        NativeStep::ToolsSnapshot(a) => {
            let text = a.statement()?;
            name.fits(&text).then_some((text, None, None))
        }
        // mcpr additions written by legacy `.mcp` scripts: no phrase yet, so they print as
        // `Run step with:`, which carries every setting.
        NativeStep::Echo(_)
        | NativeStep::Prompt(_)
        | NativeStep::QueueAnswer(_)
        | NativeStep::Check(_)
        | NativeStep::SaveText(_)
        | NativeStep::TaskWait(_)
        | NativeStep::SkillsList(_)
        | NativeStep::SkillsVerify(_)
        | NativeStep::AppsVerify(_) => None,
        NativeStep::ConfigureClient(c) => client_answer(c.behavior.as_ref()?, name),
    }
}

/// The `When the server asks for input` / `When the server requests sampling` phrase of a
/// `configure-client` behaviour that sets one scripted answer as those phrases write it.
pub(super) fn client_answer<'a>(
    behavior: &'a ClientBehavior,
    name: &StepName<'_>,
) -> Option<Head<'a>> {
    match behavior {
        ClientBehavior {
            prepared_answers_only: None,
            extensions: None,
            roots: None,
            sampling: None,
            elicitation: Some(ElicitationAnswer::Scripted(el)),
        } => {
            let action = el.action.as_deref()?;
            let content = match &el.content {
                None => None,
                Some(Value::Object(c)) if !c.is_empty() => Some(c),
                Some(_) => return None,
            };
            if action != action.to_ascii_lowercase()
                || !name.fits(&format!("Respond to elicitation with {action}"))
            {
                return None;
            }
            Some((
                format!("When the server asks for input, respond {}", qname(action)?),
                content,
                None,
            ))
        }
        ClientBehavior {
            prepared_answers_only: None,
            extensions: None,
            roots: None,
            sampling:
                Some(SamplingAnswer::Scripted(ScriptedSampling {
                    model: Some(model),
                    text: Some(text),
                    response: None,
                })),
            elicitation: None,
        } => {
            if model != "mcprigor-scripted"
                || !name.fits("Respond to sampling with a scripted message")
            {
                return None;
            }
            Some((
                format!(
                    "When the server requests sampling, respond {}",
                    qname(text)?
                ),
                None,
                None,
            ))
        }
        _ => None,
    }
}

/// A `where` value as one token that lowers back to `value`: text quoted, scalars as written.
fn condition_value(value: &Value) -> Option<String> {
    match value {
        Value::String(t) => qname(t),
        Value::Number(_) | Value::Bool(_) | Value::Null => {
            let text = value.to_string();
            (values::typed(&text) == *value).then_some(text)
        }
        _ => None,
    }
}
