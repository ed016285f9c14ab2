//! Logging and change notifications: `logging/setLevel` and `resources/subscribe` in the
//! handshake era, the `subscriptions/listen` stream in 2026.

use std::time::Duration;

use serde_json::{Value, json};

use super::Client;
use crate::error::{Error, ErrorKind};
use crate::protocol::era;
use crate::protocol::meta;
use crate::protocol::version::Era;
use crate::session::{Match, Notification, PendingRequest, RequestOptions};

/// A live `subscriptions/listen` stream.
#[derive(Debug)]
pub struct Subscription {
    /// The subscription id (= the listen request id).
    pub id: i64,
    /// The filter the server acknowledged.
    pub acknowledged: Value,
    pending: Option<PendingRequest>,
}

impl Client {
    /// `logging/setLevel` (legacy). In 2026 use [`CallOptions::log_level`] instead.
    pub async fn set_log_level(&self, level: &str) -> Result<(), Error> {
        self.require_legacy("logging/setLevel")?;
        self.session
            .request(
                "logging/setLevel",
                Some(&json!({"level": level})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    /// Fails with `MCP-CAP-001` when the session speaks 2026-07-28, which removed
    /// `method`, naming what replaces it.
    pub(super) fn require_legacy(&self, method: &str) -> Result<(), Error> {
        match era::removed_in_modern(method) {
            Some(instead) if self.session.era() == Era::Modern => {
                Err(self.session.error(ErrorKind::Unsupported {
                    operation: method.into(),
                    reason: format!("2026-07-28 removed it; use {instead}"),
                }))
            }
            _ => Ok(()),
        }
    }

    /// `resources/subscribe` (legacy; needs `resources.subscribe`).
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        self.require_legacy("resources/subscribe")?;
        if !self.server_has(&["resources", "subscribe"]) {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "resources/subscribe".into(),
                reason: "the server did not declare resources.subscribe".into(),
            }));
        }
        self.session
            .request(
                "resources/subscribe",
                Some(&json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    /// `resources/unsubscribe` (legacy).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.require_legacy("resources/unsubscribe")?;
        self.session
            .request(
                "resources/unsubscribe",
                Some(&json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    /// Opens a `subscriptions/listen` stream (2026) and waits for its acknowledgement, which
    /// must be the first message of the stream.
    pub async fn listen(
        &self,
        notifications: Value,
        timeout: Option<Duration>,
    ) -> Result<Subscription, Error> {
        if self.session.era() != Era::Modern {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "subscriptions/listen".into(),
                reason: "it exists from 2026-07-28 on; use resources/subscribe".into(),
            }));
        }
        let ropts = RequestOptions {
            timeout: Some(Duration::from_secs(24 * 3600)),
            ..Default::default()
        };
        let pending = self.session.send(
            "subscriptions/listen",
            Some(&json!({"notifications": notifications})),
            &ropts,
        )?;
        let id = pending.id;
        let filter = [Match {
            path: vec!["_meta".into(), meta::ENVELOPE_SUBSCRIPTION_ID.into()],
            value: json!(id),
        }];
        let wait = timeout.unwrap_or(self.session.request_timeout());
        let ack = self
            .session
            .wait_notification("notifications/subscriptions/acknowledged", &filter, wait)
            .await;
        match ack {
            Ok(n) => {
                let acknowledged = n
                    .params
                    .get("notifications")
                    .cloned()
                    .unwrap_or(Value::Null);
                Ok(Subscription {
                    id,
                    acknowledged,
                    pending: Some(pending),
                })
            }
            Err(e) => {
                let _ = self.session.cancel(pending, "no acknowledgement");
                Err(e)
            }
        }
    }

    /// Waits for the next notification of a listen stream (matched by its subscription id).
    pub async fn wait_subscription_notification(
        &self,
        sub: &Subscription,
        method: &str,
        timeout: Duration,
    ) -> Result<Notification, Error> {
        let filter = [Match {
            path: vec!["_meta".into(), meta::ENVELOPE_SUBSCRIPTION_ID.into()],
            value: json!(sub.id),
        }];
        self.session
            .wait_notification(method, &filter, timeout)
            .await
    }

    /// Ends a listen stream from the client side (`notifications/cancelled` on stdio).
    pub fn stop_listen(&self, mut sub: Subscription) -> Result<(), Error> {
        match sub.pending.take() {
            Some(p) => self.session.cancel(p, "client ended the subscription"),
            None => Ok(()),
        }
    }
}
