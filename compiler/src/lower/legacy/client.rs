//! The commands that stay in the client: printing, script variables, and the answers and
//! roots the client gives the server.

use serde_json::{Value, json};

use super::commands::Command;
use super::lex::Word;
use super::{Legacy, Lowered};
use crate::ir::{self, NativeStep, StepKind};

impl Legacy<'_> {
    /// `echo [text…]`: the words joined by spaces.
    pub(super) fn echo(&mut self, args: &[Word]) -> Lowered {
        let parts: Vec<String> = args.iter().map(|w| self.template_of(&w.pieces)).collect();
        let n = NativeStep::Echo(ir::EchoAction {
            timeout_ms: None,
            message: Some(parts.join(" ")),
        });
        (StepKind::native(n), None)
    }

    /// `set_var <name> <path>`: the text at the first of the path's result paths present in
    /// the last response.
    pub(super) fn set_var(&mut self, args: &[Word]) -> Option<Lowered> {
        let name = Command::SetVar.name();
        let var = self.variable_name(name, &args[0])?;
        let path = self.literal(name, &args[1], "path")?;
        let Some(paths) = self.response_paths(&path) else {
            self.bad(
                name,
                args[1].span,
                format!("`{path}` is not a path"),
                "write `rawResponse`, `structuredContent.a.b`, `$.a.b` or `a.0.b`".into(),
            );
            return None;
        };
        self.set.push(var.clone());
        let n = NativeStep::SaveText(ir::SaveTextAction {
            params: Some(Value::Array(paths.into_iter().map(Value::String).collect())),
            timeout_ms: None,
            variable: Some(var),
        });
        Some((StepKind::native(n), None))
    }

    /// `input_var <name> ["prompt"]`: asks the person at the terminal.
    pub(super) fn input_var(&mut self, args: &[Word]) -> Option<Lowered> {
        let var = self.variable_name(Command::InputVar.name(), &args[0])?;
        let message = args.get(1).map(|w| self.template_of(&w.pieces));
        self.set.push(var.clone());
        let n = NativeStep::Prompt(ir::PromptAction {
            timeout_ms: None,
            message,
            variable: Some(var),
        });
        Some((StepKind::native(n), None))
    }

    /// `elicit_response <accept|decline|cancel> ['<json object>']`: the answer to the next
    /// elicitation request.
    pub(super) fn elicit_response(&mut self, args: &[Word]) -> Option<Lowered> {
        let name = Command::ElicitResponse.name();
        let action = self.literal(name, &args[0], "action")?;
        if !ir::sets::ELICITATION_ACTIONS.contains(&action.as_str()) {
            self.bad(
                name,
                args[0].span,
                format!("`{action}` is not an answer to an elicitation"),
                "write `accept`, `decline` or `cancel`".into(),
            );
            return None;
        }
        let mut answer = json!({"action": action});
        if let Some(w) = args.get(1) {
            if action != "accept" {
                self.bad(
                    name,
                    w.span,
                    format!("only `accept` carries content, not `{action}`"),
                    "remove the content, or answer `accept`".into(),
                );
                return None;
            }
            match self.json_object(w) {
                Ok(o) => answer["content"] = Value::Object(o),
                Err(reason) => {
                    self.bad(
                        name,
                        w.span,
                        format!("the content is not a JSON object: {reason}"),
                        "write the content as one quoted JSON object, e.g. '{\"confirm\": true}'"
                            .into(),
                    );
                    return None;
                }
            }
        }
        Some(queued("elicitation/create", answer))
    }

    /// `sample_response <text>`: the answer to the next sampling request.
    pub(super) fn sample_response(&mut self, text: &Word) -> Lowered {
        let answer = json!({"text": self.template(text)});
        queued("sampling/createMessage", answer)
    }

    /// `add_root <uri> [name]`: the client offers every root added so far.
    pub(super) fn add_root(&mut self, args: &[Word]) -> Lowered {
        let uri = self.template_of(&args[0].pieces);
        let name = args.get(1).map(|w| self.template_of(&w.pieces));
        self.roots
            .push(ir::Root::Named(ir::NamedRoot { uri, name }));
        // The behaviour replaces the whole list. A line right after another `add_root`
        // extends that one's step instead (see `root_added` in mod.rs): no copy then.
        let roots = if self.roots_step {
            Vec::new()
        } else {
            self.roots.clone()
        };
        self.root_added = true;
        let n = NativeStep::ConfigureClient(ir::ConfigureClientAction {
            behavior: Some(ir::ClientBehavior {
                roots: Some(roots),
                ..Default::default()
            }),
            timeout_ms: None,
        });
        (StepKind::native(n), None)
    }
}

/// A `queue-answer` step queueing `answer` for the next server request of `method`.
fn queued(method: &str, answer: Value) -> Lowered {
    let n = NativeStep::QueueAnswer(ir::QueueAnswerAction {
        method: Some(method.into()),
        params: Some(answer),
        timeout_ms: None,
    });
    (StepKind::native(n), None)
}
