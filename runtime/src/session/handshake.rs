//! The handshake of each era: the `server/discover` probe, `initialize`, version
//! negotiation, and the facts learnt.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Session;
use super::config::{ProtocolChoice, RequestOptions};
use super::envelope::Envelope;
use crate::error::{Error, ErrorKind};
use crate::protocol::jsonrpc::{RpcError, codes};
use crate::protocol::meta;
use crate::protocol::version::{self, Era};
use crate::transport::http::HttpSink;

/// Facts learnt in the handshake.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerFacts {
    /// The era in use.
    pub era: Era,
    /// The protocol version in use.
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: Value,
    /// `serverInfo` (legacy) or `_meta` serverInfo (modern); `null` when absent.
    pub server_info: Value,
    /// The server's instructions, if any.
    pub instructions: Option<String>,
    /// 2026: the versions the server listed in `server/discover`.
    pub supported_versions: Vec<String>,
    /// The raw result of `initialize` or `server/discover`.
    pub handshake_result: Value,
}

impl Session {
    /// The handshake within its deadline (`SessionConfig::connect_timeout`), version
    /// probing included. A request of it that gets no answer in time is reported against the
    /// whole deadline, with what sets it: whatever share of it the probe took.
    pub(super) async fn handshake(&self) -> Result<ServerFacts, Error> {
        let probing = matches!(self.config.protocol, ProtocolChoice::Auto);
        self.handshake_within().await.map_err(|mut e| {
            if let ErrorKind::Timeout { after, why, .. } = &mut e.kind {
                *after = self.config.connect_timeout;
                *why = format!(
                    ": the handshake's deadline{}, set by `--timeout` (in `mcpr run` also by the suite's `Default timeout:`; 10 s unless set)",
                    if probing {
                        ", probing the protocol version with `server/discover` included"
                    } else {
                        ""
                    }
                );
            }
            e
        })
    }

    async fn handshake_within(&self) -> Result<ServerFacts, Error> {
        let deadline = Instant::now() + self.config.connect_timeout;
        let remaining = || deadline.saturating_duration_since(Instant::now());
        match self.config.protocol.clone() {
            ProtocolChoice::Pinned(v) => match version::era_of(&v) {
                Some(Era::Legacy) => self.initialize(&v, true, remaining()).await,
                Some(Era::Modern) => self.discover(&v, true, remaining()).await,
                None => Err(Error::new(ErrorKind::Usage(format!(
                    "unknown protocol version {v:?}; known: {}, {}",
                    version::HANDSHAKE_VERSIONS.join(", "),
                    version::MODERN_VERSIONS.join(", ")
                )))),
            },
            ProtocolChoice::Offered(v) => self.initialize(&v, false, remaining()).await,
            ProtocolChoice::Auto => {
                if self.inner.http.as_ref().is_some_and(|h| h.is_sse()) {
                    // HTTP+SSE exists only in the handshake era: no probe.
                    return self
                        .initialize(version::LATEST_HANDSHAKE, false, remaining())
                        .await;
                }
                let probe = self
                    .config
                    .probe_timeout
                    .min(self.config.connect_timeout / 2);
                let modern = version::MODERN_VERSIONS[version::MODERN_VERSIONS.len() - 1];
                match self.discover(modern, false, probe).await {
                    Ok(facts) => Ok(facts),
                    Err(e)
                        if matches!(
                            e.kind,
                            ErrorKind::Timeout { .. }
                                | ErrorKind::Rpc { .. }
                                | ErrorKind::Handshake { .. }
                                | ErrorKind::Http { .. }
                        ) =>
                    {
                        *self.inner.envelope.lock().expect("envelope lock") = None;
                        self.initialize(version::LATEST_HANDSHAKE, false, remaining())
                            .await
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    pub(super) async fn initialize(
        &self,
        requested: &str,
        pinned: bool,
        timeout: Duration,
    ) -> Result<ServerFacts, Error> {
        let mut behaviour = self.inner.behaviour.lock().expect("behaviour lock").clone();
        behaviour.tasks |= self.config.handshake_tasks;
        let params = json!({
            "protocolVersion": requested,
            "capabilities": behaviour.capabilities(Era::Legacy),
            "clientInfo": self.config.client_info.to_value(),
        });
        let opts = RequestOptions {
            timeout: Some(timeout),
            no_envelope: true,
            ..Default::default()
        };
        let outcome = self.exchange("initialize", Some(&params), &opts).await?;
        let result = match outcome {
            Ok(r) => r,
            Err(rpc) => {
                // A server that already serves 2026-07-28 on this connection (it answered a
                // probe we stopped waiting for, say, because it started slowly) refuses the
                // handshake with -32022 and names what it supports: follow it, unless the
                // suite pinned a version.
                if !pinned && rpc.code == codes::UNSUPPORTED_PROTOCOL_VERSION {
                    let supported = supported_versions(&rpc);
                    let modern = version::MODERN_VERSIONS
                        .iter()
                        .rev()
                        .find(|v| supported.iter().any(|s| s == *v));
                    if let Some(v) = modern {
                        return self.discover(v, false, timeout).await;
                    }
                }
                return Err(self.inner.error(ErrorKind::Handshake {
                    reason: format!("the server answered initialize with error {rpc}"),
                }));
            }
        };
        let Some(offered) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(self.inner.error(ErrorKind::Handshake {
                reason: "the initialize result has no string protocolVersion".into(),
            }));
        };
        let Some(capabilities) = result
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
        else {
            return Err(self.inner.error(ErrorKind::Handshake {
                reason: "the initialize result has no capabilities object".into(),
            }));
        };
        if version::era_of(&offered) != Some(Era::Legacy) {
            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                requested: requested.into(),
                offered,
                reason: format!(
                    "the initialize handshake exists in {} only",
                    version::HANDSHAKE_VERSIONS.join(", ")
                ),
            }));
        }
        if pinned && offered != requested {
            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                requested: requested.into(),
                offered,
                reason: "the version is pinned".into(),
            }));
        }
        {
            let mut st = self.inner.state.lock().expect("state lock");
            if result
                .get("serverInfo")
                .and_then(|s| s.get("name"))
                .and_then(Value::as_str)
                .is_none()
            {
                let kind = ErrorKind::InvalidResult {
                    method: "initialize".into(),
                    reason: "serverInfo.name is missing".into(),
                };
                self.inner.record_violation(&mut st, &kind, false);
            }
        }
        *self.inner.batching.lock().expect("batching lock") = version::batching_allowed(&offered);
        *self.inner.negotiated.lock().expect("negotiated lock") = Some(offered.clone());
        if let Some(http) = &self.inner.http
            && !http.is_sse()
        {
            // The GET stream stands before `initialized`, so what the server sends on
            // initialization (list_changed, roots/list…) has somewhere to go.
            let sink: Arc<dyn HttpSink> = self.inner.sink();
            let ready = http.open_get_stream(sink, Some(offered.clone()));
            let _ = tokio::time::timeout(Duration::from_secs(2).min(timeout), ready).await;
        }
        self.notify("notifications/initialized", None)
            .map_err(|k| self.inner.error(k))?;
        Ok(ServerFacts {
            era: Era::Legacy,
            protocol_version: offered,
            capabilities,
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: Vec::new(),
            handshake_result: result,
        })
    }

    pub(super) async fn discover(
        &self,
        requested: &str,
        pinned: bool,
        timeout: Duration,
    ) -> Result<ServerFacts, Error> {
        let deadline = Instant::now() + timeout;
        let mut version = requested.to_string();
        for _attempt in 0..2 {
            let behaviour = self.inner.behaviour.lock().expect("behaviour lock").clone();
            *self.inner.envelope.lock().expect("envelope lock") = Some(Envelope::new(
                version.clone(),
                behaviour.capabilities(Era::Modern),
                self.config.client_info.to_value(),
            ));
            let opts = RequestOptions {
                timeout: Some(deadline.saturating_duration_since(Instant::now())),
                ..Default::default()
            };
            let outcome = self
                .exchange("server/discover", Some(&json!({})), &opts)
                .await?;
            match outcome {
                Ok(result) => {
                    let supported: Vec<String> = result
                        .get("supportedVersions")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    let Some(capabilities) = result
                        .get("capabilities")
                        .filter(|c| c.is_object())
                        .cloned()
                    else {
                        return Err(self.inner.error(ErrorKind::Handshake {
                            reason: "the server/discover result has no capabilities object".into(),
                        }));
                    };
                    if !supported.is_empty() && !supported.contains(&version) {
                        return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                            requested: version,
                            offered: supported.join(", "),
                            reason: "server/discover does not list the version in use".into(),
                        }));
                    }
                    self.check_modern_result("server/discover", &result);
                    let server_info = meta::get_meta(&result, meta::ENVELOPE_SERVER_INFO)
                        .or_else(|| result.get("serverInfo"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    return Ok(ServerFacts {
                        era: Era::Modern,
                        protocol_version: version,
                        capabilities,
                        server_info,
                        instructions: result
                            .get("instructions")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        supported_versions: supported,
                        handshake_result: result,
                    });
                }
                Err(rpc)
                    if rpc.code == codes::UNSUPPORTED_PROTOCOL_VERSION
                        || rpc.code == codes::RC_UNSUPPORTED_PROTOCOL_VERSION =>
                {
                    let supported = supported_versions(&rpc);
                    let usable = supported
                        .iter()
                        .rev()
                        .find(|v| version::era_of(v) == Some(Era::Modern))
                        .cloned();
                    match usable {
                        // The server refused a version it lists as supported: ask once more.
                        Some(v) if v == version => {}
                        Some(v) if !pinned => version = v,
                        _ => {
                            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                                requested: version,
                                offered: supported.join(", "),
                                reason: "no stateless version both sides speak".into(),
                            }));
                        }
                    }
                }
                Err(rpc) => {
                    let kind = ErrorKind::Rpc {
                        method: "server/discover".into(),
                        error: rpc,
                    };
                    return Err(self.inner.error(kind));
                }
            }
        }
        Err(self.inner.error(ErrorKind::Handshake {
            reason: "server/discover did not settle on a version".into(),
        }))
    }
}

/// The versions an "unsupported protocol version" error names in `data.supported`.
pub(super) fn supported_versions(rpc: &RpcError) -> Vec<String> {
    rpc.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}
