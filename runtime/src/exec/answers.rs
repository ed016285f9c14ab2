//! Answers given during a test: the person's, at the terminal (`prompt`), and prepared
//! answers to the server's next request (`queue-answer`).

use serde_json::{Value, json};

use crate::codes::RunCode;

use super::{StepFail, fail};
use crate::session::Session;
use crate::values::as_text;
use std::io::{BufRead, IsTerminal, Write};

/// `prompt`: asks on the terminal. Fails when stdin is not a terminal or the run is in CI
/// (`ci`), since nobody could answer.
pub(super) fn prompt(variable: &str, message: Option<&str>, ci: bool) -> Result<String, StepFail> {
    if ci || !std::io::stdin().is_terminal() {
        return Err(fail(
            RunCode::NoTerminal,
            format!(
                "input_var {variable} asks the person at the terminal, but this run is not interactive ({}); set the value in the script with set_var, or run it in a terminal",
                if ci {
                    "CI is set"
                } else {
                    "stdin is not a terminal"
                }
            ),
        ));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{}: ", message.unwrap_or(variable));
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| fail(RunCode::NoTerminal, format!("cannot read the answer: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// `queue-answer`: the answer a server request of `method` gets next.
pub(super) fn queue_answer(
    session: &Session,
    method: &str,
    params: &Value,
) -> Result<(), StepFail> {
    let answer = match method {
        "elicitation/create" => {
            let action = params
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("accept");
            let mut a = json!({"action": action});
            if action == "accept" {
                a["content"] = params.get("content").cloned().unwrap_or_else(|| json!({}));
            }
            a
        }
        "sampling/createMessage" => {
            let text = params.get("text").map(as_text).unwrap_or_default();
            let model = params
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or("mcpr-script");
            json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": model, "stopReason": "endTurn"})
        }
        other => {
            return Err(fail(
                RunCode::NativeStep,
                format!(
                    "queue-answer answers elicitation/create or sampling/createMessage, not {other}"
                ),
            ));
        }
    };
    session.queue_answer(method, Ok(answer));
    Ok(())
}
