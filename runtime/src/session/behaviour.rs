//! What the client declares (roots, sampling, elicitation, tasks, extensions) and how it
//! answers the server's requests: plain data and pure functions, no session.

use serde_json::{Map, Value, json};

use crate::protocol::jsonrpc::{RpcError, codes};
use crate::protocol::meta::{self, EXT_TASKS};
use crate::protocol::version::Era;

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Root {
    /// `file://…` URI.
    pub uri: String,
    /// Optional name.
    pub name: Option<String>,
}

/// How the client answers `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingAnswer {
    /// The assistant's text.
    pub text: String,
    /// The model name reported.
    pub model: String,
    /// The stop reason reported.
    pub stop_reason: String,
}

impl Default for SamplingAnswer {
    fn default() -> Self {
        SamplingAnswer {
            text: "sampled text".into(),
            model: "mcpr-canned".into(),
            stop_reason: "endTurn".into(),
        }
    }
}

/// How the client answers `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationAnswer {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The form content sent with `accept`.
    pub content: Option<Value>,
    /// Whether URL-mode elicitation is declared and accepted.
    pub url_mode: bool,
}

impl Default for ElicitationAnswer {
    fn default() -> Self {
        ElicitationAnswer {
            action: "accept".into(),
            content: Some(json!({})),
            url_mode: false,
        }
    }
}

/// What the client declares and how it answers the server's requests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientBehaviour {
    /// Roots (declares `roots`), or none.
    pub roots: Option<Vec<Root>>,
    /// Sampling answer (declares `sampling`), or none.
    pub sampling: Option<SamplingAnswer>,
    /// Elicitation answer (declares `elicitation`), or none.
    pub elicitation: Option<ElicitationAnswer>,
    /// Declare tasks (2025-11-25 `tasks` capability; 2026 tasks extension).
    pub tasks: bool,
    /// Further extensions to declare (`io.modelcontextprotocol/ui` …).
    pub extensions: Map<String, Value>,
    /// Answer sampling and elicitation only with queued answers: without one the request
    /// fails (legacy scripts prepare every answer before the call).
    pub prepared_answers_only: bool,
}

impl ClientBehaviour {
    /// Everything declared, with canned answers: for tests and interop runs.
    pub fn everything() -> ClientBehaviour {
        let mut extensions = Map::new();
        extensions.insert(
            meta::EXT_UI.into(),
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        );
        ClientBehaviour {
            roots: Some(vec![Root {
                uri: "file:///tmp/mcpr-root".into(),
                name: Some("mcpr root".into()),
            }]),
            sampling: Some(SamplingAnswer::default()),
            elicitation: Some(ElicitationAnswer {
                action: "accept".into(),
                content: Some(json!({})),
                url_mode: true,
            }),
            tasks: true,
            extensions,
            prepared_answers_only: false,
        }
    }

    /// The capabilities object for `initialize` (legacy) or the envelope (modern).
    pub fn capabilities(&self, era: Era) -> Value {
        let mut caps = Map::new();
        if self.roots.is_some() {
            caps.insert(
                "roots".into(),
                if era == Era::Legacy {
                    json!({"listChanged": true})
                } else {
                    json!({})
                },
            );
        }
        if self.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if let Some(e) = &self.elicitation {
            caps.insert(
                "elicitation".into(),
                if e.url_mode {
                    json!({"form": {}, "url": {}})
                } else {
                    json!({"form": {}})
                },
            );
        }
        let mut extensions = self.extensions.clone();
        if self.tasks {
            if era == Era::Legacy {
                caps.insert("tasks".into(), json!({"list": {}, "cancel": {}}));
            }
            extensions.insert(EXT_TASKS.into(), json!({}));
        }
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }

    /// The answer to one server→client request (legacy) or input request (modern).
    pub fn answer(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let not_supported = |what: &str| RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: format!("the client does not support {what}"),
            data: None,
        };
        match method {
            "ping" => Ok(json!({})),
            "roots/list" => match &self.roots {
                Some(roots) => Ok(json!({"roots": roots.iter().map(|r| {
                    let mut o = json!({"uri": r.uri});
                    if let Some(n) = &r.name { o["name"] = json!(n); }
                    o
                }).collect::<Vec<_>>()})),
                None => Err(not_supported("roots")),
            },
            "sampling/createMessage" | "elicitation/create" if self.prepared_answers_only => {
                let (what, command) = if method == "sampling/createMessage" {
                    ("sampling", "sample_response")
                } else {
                    ("elicitation", "elicit_response")
                };
                Err(RpcError {
                    code: codes::INTERNAL_ERROR,
                    message: format!(
                        "no answer prepared for this {what} request (queue one with {command} before the call)"
                    ),
                    data: None,
                })
            }
            "sampling/createMessage" => match &self.sampling {
                Some(s) => Ok(
                    json!({"role": "assistant", "content": {"type": "text", "text": s.text}, "model": s.model, "stopReason": s.stop_reason}),
                ),
                None => Err(not_supported("sampling")),
            },
            "elicitation/create" => match &self.elicitation {
                Some(e) => {
                    let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
                    if mode == "url" && !e.url_mode {
                        return Err(RpcError {
                            code: codes::INVALID_PARAMS,
                            message: "the client did not declare URL-mode elicitation".into(),
                            data: None,
                        });
                    }
                    let mut out = json!({"action": e.action});
                    if e.action == "accept" && mode == "form" {
                        let mut content = e.content.clone().unwrap_or_else(|| json!({}));
                        // SEP-1034: fields the answer leaves out take the schema's defaults.
                        if let (Some(obj), Some(props)) = (
                            content.as_object_mut(),
                            params
                                .get("requestedSchema")
                                .and_then(|s| s.get("properties"))
                                .and_then(Value::as_object),
                        ) {
                            for (name, prop) in props {
                                if let Some(default) = prop.get("default")
                                    && !obj.contains_key(name)
                                {
                                    obj.insert(name.clone(), default.clone());
                                }
                            }
                        }
                        out["content"] = content;
                    }
                    Ok(out)
                }
                None => Err(not_supported("elicitation")),
            },
            other => Err(RpcError {
                code: codes::METHOD_NOT_FOUND,
                message: format!("Method not found: {other}"),
                data: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn behaviour_answers() {
        let b = ClientBehaviour::everything();
        assert_eq!(b.answer("ping", &Value::Null).unwrap(), json!({}));
        assert_eq!(
            b.answer("roots/list", &Value::Null).unwrap()["roots"][0]["uri"],
            "file:///tmp/mcpr-root"
        );
        assert_eq!(
            b.answer("sampling/createMessage", &json!({})).unwrap()["role"],
            "assistant"
        );
        assert_eq!(
            b.answer("elicitation/create", &json!({"mode": "form"}))
                .unwrap()["action"],
            "accept"
        );
        let none = ClientBehaviour::default();
        assert_eq!(
            none.answer("roots/list", &Value::Null).unwrap_err().code,
            -32601
        );
        assert_eq!(
            none.answer("foo/bar", &Value::Null).unwrap_err().code,
            -32601
        );
        let defaults = b
            .answer(
                "elicitation/create",
                &json!({"requestedSchema": {"properties": {"name": {"type": "string", "default": "John"}, "age": {"type": "integer", "default": 30}}}}),
            )
            .unwrap();
        assert_eq!(defaults["content"], json!({"name": "John", "age": 30}));
        let form_only = ClientBehaviour {
            elicitation: Some(ElicitationAnswer::default()),
            ..Default::default()
        };
        assert_eq!(
            form_only
                .answer("elicitation/create", &json!({"mode": "url"}))
                .unwrap_err()
                .code,
            -32602
        );
        let caps = b.capabilities(Era::Legacy);
        assert!(caps["roots"]["listChanged"].as_bool().unwrap());
        assert!(caps["extensions"][EXT_TASKS].is_object());
        assert!(b.capabilities(Era::Modern).get("tasks").is_none());
    }
}
