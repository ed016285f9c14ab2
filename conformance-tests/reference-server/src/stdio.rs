//! The reference server's stdio transport: the SDK's, with one fix found by `mcpr
//! conformance` (`cancellation.unknown-id`). Until a client's first request picks a
//! lifecycle, the SDK (rmcp 3.11) answers `server/discover` and `ping` itself and stops the
//! whole server, with an error, at any notification. In the stateless era (2026-07-28)
//! there is no `initialize` to come first, and the one notification a client sends there,
//! `notifications/cancelled`, may well arrive then; it can name no request in flight (each
//! one so far was answered before the next was read), and the specification says a
//! cancellation of an unknown request is ignored. So it is dropped here, before the SDK
//! sees it, until the lifecycle is picked.
//!
//! `--broken unknown-cancel` breaks the rule on purpose instead: a cancellation that names
//! no request in flight is answered with a JSON-RPC error (a notification gets no reply).

use std::collections::HashSet;
use std::future::Future;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::{ErrorData, RoleServer};

/// The SDK's stdio transport with cancellations dropped before the lifecycle starts.
pub struct Stdio<T> {
    inner: T,
    started: bool,
    /// The ids of the requests read and not answered yet.
    in_flight: HashSet<RequestId>,
    /// `--broken unknown-cancel`: answer a cancellation of an unknown request.
    reply_to_unknown_cancel: bool,
}

/// The process's stdin and stdout as the reference server's transport.
pub fn transport(
    reply_to_unknown_cancel: bool,
) -> Stdio<impl Transport<RoleServer, Error = std::io::Error>> {
    Stdio {
        inner: IntoTransport::<RoleServer, std::io::Error, _>::into_transport(
            rmcp::transport::stdio(),
        ),
        started: false,
        in_flight: HashSet::new(),
        reply_to_unknown_cancel,
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Stdio<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &item {
            ServerJsonRpcMessage::Response(r) => {
                self.in_flight.remove(&r.id);
            }
            ServerJsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.in_flight.remove(id);
                }
            }
            _ => {}
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let msg = self.inner.receive().await?;
            match &msg {
                ClientJsonRpcMessage::Request(r) => {
                    self.in_flight.insert(r.id.clone());
                }
                ClientJsonRpcMessage::Notification(n) if self.reply_to_unknown_cancel => {
                    if let ClientNotification::CancelledNotification(c) = &n.notification
                        && !c
                            .params
                            .request_id
                            .as_ref()
                            .is_some_and(|id| self.in_flight.contains(id))
                    {
                        let error = ErrorData::invalid_params("no such request in flight", None);
                        let _ = self
                            .inner
                            .send(ServerJsonRpcMessage::error(error, None))
                            .await;
                        continue;
                    }
                }
                _ => {}
            }
            if !self.started {
                match &msg {
                    ClientJsonRpcMessage::Notification(n)
                        if matches!(
                            n.notification,
                            ClientNotification::CancelledNotification(_)
                        ) =>
                    {
                        continue;
                    }
                    ClientJsonRpcMessage::Request(r)
                        if !matches!(
                            r.request,
                            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_)
                        ) =>
                    {
                        self.started = true;
                    }
                    _ => {}
                }
            }
            return Some(msg);
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
