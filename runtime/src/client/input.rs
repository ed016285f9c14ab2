//! Multi round-trip requests (2026 `input_required`): input requests answered from the
//! client behaviour, the request retried with the answers; and the reads that use them.

use serde_json::{Map, Value, json};

use super::Client;
use super::field;
use crate::BoxFuture;
use crate::error::{Error, ErrorKind};
use crate::session::RequestOptions;

/// Most rounds of a multi round-trip request before giving up.
pub const MAX_INPUT_ROUNDS: usize = 16;

impl Client {
    /// Sends a request that may answer `input_required` (2026 multi round-trip): every
    /// input request is answered from the client behaviour (or queued answers) and the
    /// request is retried with a new id, the answers and the echoed `requestState`.
    pub async fn request_with_input(
        &self,
        method: &str,
        params: Value,
        ropts: &RequestOptions,
    ) -> Result<(Value, usize), Error> {
        let first = self.session.request(method, Some(&params), ropts).await?;
        if !needs_input(&first) {
            return Ok((first, 1));
        }
        self.input_rounds(method, params, ropts, first).await
    }

    /// The rounds after a first `input_required` result `first`. Boxed behind `dyn`: the
    /// rounds of a multi round-trip request keep their code out of every request's future.
    pub(super) fn input_rounds<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        ropts: &'a RequestOptions,
        first: Value,
    ) -> BoxFuture<'a, Result<(Value, usize), Error>> {
        Box::pin(self.answer_input_rounds(method, params, ropts, first))
    }

    pub(super) async fn answer_input_rounds(
        &self,
        method: &str,
        params: Value,
        ropts: &RequestOptions,
        first: Value,
    ) -> Result<(Value, usize), Error> {
        let mut params = params;
        let mut result = first;
        for round in 2..=MAX_INPUT_ROUNDS {
            let requests = result.get("inputRequests");
            let state = result.get("requestState");
            if requests.is_none() && state.is_none() {
                return Err(self.input_error(
                    method,
                    "an input_required result without inputRequests or requestState",
                ));
            }
            let mut responses = Map::new();
            if let Some(reqs) = requests {
                let Some(reqs) = reqs.as_object() else {
                    return Err(self.input_error(method, "inputRequests is not an object"));
                };
                for (key, req) in reqs {
                    let Some(m) = req.get("method").and_then(Value::as_str) else {
                        return Err(self
                            .input_error(method, format!("input request {key:?} has no method")));
                    };
                    let p = req.get("params").cloned().unwrap_or(Value::Null);
                    match self.session.answer_input_request(m, &p) {
                        Ok(answer) => {
                            responses.insert(key.clone(), answer);
                        }
                        Err(e) => return Err(self.input_error(method, format!("the server asked for {m} ({key:?}), which the client cannot answer: {e}"))),
                    }
                }
            }
            let obj = params.as_object_mut().expect("params are an object");
            obj.insert("inputResponses".into(), Value::Object(responses));
            match state {
                Some(s) => {
                    obj.insert("requestState".into(), s.clone());
                }
                None => {
                    obj.remove("requestState");
                }
            }
            result = self.session.request(method, Some(&params), ropts).await?;
            if !needs_input(&result) {
                return Ok((result, round));
            }
        }
        Err(self.input_error(
            method,
            format!("still input_required after {MAX_INPUT_ROUNDS} rounds"),
        ))
    }

    #[cold]
    pub(super) fn input_error(&self, method: &str, reason: impl Into<String>) -> Error {
        self.session.error(ErrorKind::InputRequired {
            method: method.into(),
            reason: reason.into(),
        })
    }

    /// Reads a resource (multi round-trip aware).
    pub async fn read_resource(&self, uri: &str) -> Result<Value, Error> {
        self.read_resource_within(uri, None).await
    }

    /// Reads a resource with a deadline of its own (the session's when `None`).
    pub async fn read_resource_within(
        &self,
        uri: &str,
        timeout: Option<std::time::Duration>,
    ) -> Result<Value, Error> {
        let opts = RequestOptions {
            timeout,
            ..RequestOptions::default()
        };
        let (result, _) = self
            .request_with_input("resources/read", json!({"uri": uri}), &opts)
            .await?;
        if !result.get("contents").is_some_and(Value::is_array) {
            return Err(self.invalid("resources/read", "`contents` is missing or not an array"));
        }
        Ok(result)
    }

    /// Gets a prompt (multi round-trip aware).
    pub async fn get_prompt(&self, name: &str, arguments: Option<Value>) -> Result<Value, Error> {
        self.get_prompt_within(name, arguments, None).await
    }

    /// Gets a prompt with a deadline of its own (the session's when `None`).
    pub async fn get_prompt_within(
        &self,
        name: &str,
        arguments: Option<Value>,
        timeout: Option<std::time::Duration>,
    ) -> Result<Value, Error> {
        let mut params = json!({"name": name});
        if let Some(a) = arguments {
            params["arguments"] = a;
        }
        let opts = RequestOptions {
            timeout,
            ..RequestOptions::default()
        };
        let (result, _) = self
            .request_with_input("prompts/get", params, &opts)
            .await?;
        if !result.get("messages").is_some_and(Value::is_array) {
            return Err(self.invalid("prompts/get", "`messages` is missing or not an array"));
        }
        Ok(result)
    }

    /// `completion/complete` for a prompt (`ref/prompt`) or resource template
    /// (`ref/resource`) argument; returns the `completion` object.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Result<Value, Error> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if let Some(c) = context {
            params["context"] = json!({"arguments": c});
        }
        let result = self
            .session
            .request(
                "completion/complete",
                Some(&params),
                &RequestOptions::default(),
            )
            .await?;
        let Some(completion) = result.get("completion") else {
            return Err(self.invalid("completion/complete", "`completion` is missing"));
        };
        match completion.get("values").and_then(Value::as_array) {
            Some(v) if v.len() <= 100 && v.iter().all(Value::is_string) => Ok(completion.clone()),
            Some(v) if v.len() > 100 => Err(self.invalid(
                "completion/complete",
                format!("{} values; at most 100 are allowed", v.len()),
            )),
            _ => Err(self.invalid(
                "completion/complete",
                "`completion.values` is not an array of strings",
            )),
        }
    }
}

/// Whether a result asks for input before the request can finish (2026 multi round-trip).
pub(super) fn needs_input(result: &Value) -> bool {
    field(result, "resultType").and_then(Value::as_str) == Some("input_required")
}
