//! Sending: request ids, the line over stdio or the POST over HTTP, the 2026 envelope and
//! request-scoped `_meta`, notifications.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::Session;
use super::config::RequestOptions;
use super::pending::{PendingRequest, PendingSlot, method_name};
use super::state::Inner;
use super::wait::with_during;
use crate::error::{Error, ErrorKind};
use crate::protocol::meta;
use crate::protocol::{era, jsonrpc};
use crate::transcript::{Direction, MessageKind};
use crate::transport::http::{HttpSink, HttpWire, MessageInfo};
use crate::transport::stdio::WriteFailure;

/// The params to change, copied now if they were borrowed.
pub(super) fn edit<'v>(params: &'v mut Option<Cow<'_, Value>>) -> &'v mut Value {
    params.get_or_insert_with(|| Cow::Owned(json!({}))).to_mut()
}

impl Inner {
    /// Sends a line (the transcript entry is written first, so order is kept).
    #[allow(clippy::result_large_err)]
    pub(super) fn send_line(
        self: &Arc<Self>,
        value: &Value,
        kind: MessageKind,
        method: Option<&str>,
    ) -> Result<(), ErrorKind> {
        // Straight into a byte buffer: `Display` would go through the formatter per piece.
        let text = serde_json::to_string(value).unwrap_or_else(|_| value.to_string());
        self.send_text(text, Some(value), kind, method)
    }

    /// Sends a line already serialized (`value` is the message, when the caller has it; an
    /// HTTP post needs it for its headers and reads it back from the text otherwise).
    #[allow(clippy::result_large_err)]
    pub(super) fn send_text(
        self: &Arc<Self>,
        text: String,
        value: Option<&Value>,
        kind: MessageKind,
        method: Option<&str>,
    ) -> Result<(), ErrorKind> {
        // With foreground reads nothing reads the server's answers until this thread
        // does, so the message is recorded after it is written, while the server works
        // on it; otherwise before, so that it precedes its answer in the transcript.
        let after = self.foreground.is_some();
        if !after {
            let mut st = self.state.lock().map_err(|_| ErrorKind::Closed)?;
            self.push_transcript(&mut st, Direction::Sent, kind, method, text.as_bytes());
        }
        if let Some(http) = &self.http {
            self.post(http, text, value);
            return Ok(());
        }
        // Over stdio the text becomes the line: its buffer gets the newline.
        let mut line = text.into_bytes();
        line.push(b'\n');
        let sent = match &self.writer {
            Some(writer) => writer.send(&line).map_err(|f| match f {
                WriteFailure::Closed => ErrorKind::Closed,
                WriteFailure::Failed(reason) => ErrorKind::Write { reason },
                WriteFailure::Budget { limit } => ErrorKind::BufferBudget {
                    limit,
                    what: "lines the server has not read from its stdin",
                },
            }),
            None => Err(ErrorKind::Closed),
        };
        if after {
            let text = &line[..line.len() - 1];
            let mut st = self.state.lock().map_err(|_| ErrorKind::Closed)?;
            self.push_transcript(&mut st, Direction::Sent, kind, method, text);
        }
        sent
    }

    /// Posts a message over HTTP (`value` is the message, when the caller has it).
    #[inline(never)]
    pub(super) fn post(
        self: &Arc<Self>,
        http: &Arc<HttpWire>,
        text: String,
        value: Option<&Value>,
    ) {
        let parsed;
        let value = match value {
            Some(v) => v,
            None => {
                parsed = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
                &parsed
            }
        };
        let info = self.message_info(value);
        let sink: Arc<dyn HttpSink> = self.sink();
        http.post(sink, text, info);
    }

    /// The HTTP headers' view of an outgoing message.
    pub(super) fn message_info(&self, value: &Value) -> MessageInfo {
        let method = value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = if method.is_some() {
            value.get("id").and_then(Value::as_i64)
        } else {
            None
        };
        // Only the 2026 version is needed, not the whole envelope; the header mirrors the
        // version the message's own `_meta` names, when a step wrote one (the two must
        // agree, and a suite that sends another version tests the server's answer to it).
        let modern_version = self
            .envelope
            .lock()
            .ok()
            .and_then(|e| e.as_ref().map(|env| env.version.clone()))
            .map(|v| {
                value
                    .get("params")
                    .and_then(|p| meta::get_meta(p, meta::ENVELOPE_PROTOCOL_VERSION))
                    .and_then(Value::as_str)
                    .map_or(v, str::to_string)
            });
        let name = method
            .as_deref()
            .and_then(|m| era::request_name(m, value.get("params")))
            .map(str::to_string);
        let modern = modern_version.is_some();
        let protocol_version =
            modern_version.or_else(|| self.negotiated.lock().ok().and_then(|n| n.clone()));
        let extra_headers = id
            .and_then(|i| {
                self.request_headers
                    .lock()
                    .ok()
                    .and_then(|mut h| h.remove(&i))
            })
            .unwrap_or_default();
        MessageInfo {
            id,
            method,
            name,
            protocol_version,
            modern,
            extra_headers,
            session_id: None,
        }
    }
}

impl Session {
    /// Sends a notification.
    #[allow(clippy::result_large_err)]
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ErrorKind> {
        if let Some(fatal) = self.fatal() {
            return Err(fatal);
        }
        let msg = jsonrpc::notification(method, params);
        self.inner
            .send_line(&msg, MessageKind::Notification, Some(method))
    }

    pub(super) fn fatal(&self) -> Option<ErrorKind> {
        self.inner.state.lock().ok().and_then(|st| st.fatal.clone())
    }

    /// Sends a request and returns at once; `wait` collects the answer.
    pub fn send(
        &self,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Result<PendingRequest, Error> {
        self.send_params(method, params.map(Cow::Borrowed), opts)
    }

    /// [`Session::send`] with params that may be borrowed: they are copied only when the
    /// message needs more than they hold (the 2026 envelope, a log level, a progress token)
    /// or the transport keeps them (HTTP), so a caller that may send the same params again
    /// need not copy them for every attempt.
    pub(super) fn send_params(
        &self,
        method: &str,
        params: Option<Cow<'_, Value>>,
        opts: &RequestOptions,
    ) -> Result<PendingRequest, Error> {
        if self.closed.lock().map(|c| c.is_some()).unwrap_or(true) {
            return Err(self.inner.error(ErrorKind::Closed));
        }
        // What only some requests need is done out of line, to keep the code every
        // request runs through small.
        let mut params = params;
        let resend = match &self.inner.http {
            Some(http) => self.resend_for(http, method, params.as_deref(), opts),
            None => None,
        };
        // Over stdio the 2026 envelope usually goes into the line as text made once per
        // session; otherwise it is added to the params here.
        let envelope = self.envelope_text(params.as_deref(), opts);
        if envelope.is_none() {
            self.add_meta(&mut params, opts);
        }
        let name = method_name(method);
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut st = self.inner.state.lock().expect("state lock");
            if let Some(fatal) = &st.fatal {
                let kind = with_during(fatal.clone(), method);
                drop(st);
                return Err(self.inner.error(kind));
            }
            let id = st.next_id;
            st.next_id += 1;
            st.pending.insert(
                id,
                PendingSlot {
                    method: name.clone(),
                    log_level: opts.log_level.is_some(),
                    tx,
                },
            );
            id
        };
        if let Some(fault) = opts.fault {
            self.inner.expect_fault(id, fault);
        }
        if let Some(token) = &opts.progress_token {
            self.track_progress(token, &mut params);
        }
        // Over stdio the line is written straight from the parts; HTTP needs the message.
        let sent = if self.inner.http.is_some() {
            self.send_over_http(id, method, params, opts)
        } else {
            let text = jsonrpc::request_text(id, method, params.as_deref(), envelope.as_deref());
            self.inner
                .send_text(text, None, MessageKind::Request, Some(method))
        };
        let unsent = match sent {
            Ok(()) => None,
            Err(kind) => Some(self.unsent(id, kind)?),
        };
        if opts.fault == Some(super::Fault::Disconnect) {
            self.inner.disconnect();
        }
        Ok(PendingRequest {
            id,
            method: name,
            deadline: opts.timeout.unwrap_or(self.config.request_timeout),
            sent_at: Instant::now(),
            progress_key: opts
                .progress_token
                .as_ref()
                .filter(|_| opts.reset_on_progress)
                .map(Value::to_string),
            max_total: opts.max_total,
            rx,
            resend,
            unsent,
        })
    }

    /// What it takes to send a request again if its HTTP session expires: only
    /// handshake-era Streamable HTTP has sessions that can.
    #[inline(never)]
    pub(super) fn resend_for(
        &self,
        http: &HttpWire,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Option<Box<(Option<Value>, RequestOptions)>> {
        let sessions = !http.is_sse()
            && self
                .inner
                .envelope
                .lock()
                .map(|e| e.is_none())
                .unwrap_or(false);
        (sessions && method != "initialize").then(|| Box::new((params.cloned(), opts.clone())))
    }

    /// The `_meta` text of the 2026 envelope when a request over stdio can carry it as it
    /// is: the params have no `_meta` of their own and nothing else goes into it.
    pub(super) fn envelope_text(
        &self,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Option<Arc<str>> {
        let plain = match params {
            None => true,
            Some(Value::Object(members)) => !members.contains_key("_meta"),
            Some(_) => false,
        };
        if !plain
            || self.inner.http.is_some()
            || opts.no_envelope
            || opts.log_level.is_some()
            || opts.progress_token.is_some()
        {
            return None;
        }
        let envelope = self.inner.envelope.lock().expect("envelope lock");
        envelope.as_ref().map(|env| env.meta.clone())
    }

    /// Adds the 2026 envelope and a request-scoped log level to the params' `_meta`.
    #[inline(never)]
    pub(super) fn add_meta(&self, params: &mut Option<Cow<'_, Value>>, opts: &RequestOptions) {
        if !opts.no_envelope
            && let Some(env) = self.inner.envelope.lock().expect("envelope lock").as_ref()
        {
            env.insert_into(edit(params));
        }
        if let Some(level) = &opts.log_level {
            meta::insert_meta(edit(params), meta::ENVELOPE_LOG_LEVEL, json!(level));
        }
    }

    /// Sends a request over HTTP (with the headers the call asked for).
    #[allow(clippy::result_large_err)]
    #[inline(never)]
    pub(super) fn send_over_http(
        &self,
        id: i64,
        method: &str,
        params: Option<Cow<'_, Value>>,
        opts: &RequestOptions,
    ) -> Result<(), ErrorKind> {
        if !opts.http_headers.is_empty() {
            self.inner
                .request_headers
                .lock()
                .expect("headers lock")
                .insert(id, opts.http_headers.clone());
        }
        let msg = jsonrpc::request(id, method, params.map(Cow::into_owned));
        self.inner
            .send_line(&msg, MessageKind::Request, Some(method))
    }

    /// A request that could not be sent. A server whose stdin is closed has almost always
    /// exited: the request stays pending so that the end of its stdout fails it with the
    /// exit status and stderr (the wait gives that a moment), rather than as a bare write
    /// failure. Other failures end the request now.
    #[cold]
    #[inline(never)]
    pub(super) fn unsent(&self, id: i64, kind: ErrorKind) -> Result<Box<ErrorKind>, Error> {
        match kind {
            ErrorKind::Write { .. } if self.inner.handle.is_some() => Ok(Box::new(kind)),
            kind => {
                self.inner.forget_pending(id);
                Err(self.inner.error(kind))
            }
        }
    }
}
