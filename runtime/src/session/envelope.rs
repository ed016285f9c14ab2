//! The 2026-07-28 `_meta` envelope every request carries (version, capabilities, client
//! info), kept as JSON text made once per session.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::protocol::meta;

pub(super) struct Envelope {
    pub(super) version: String,
    pub(super) capabilities: Value,
    pub(super) client_info: Value,
    /// The `_meta` object of the three as JSON text, written into request lines as it is.
    pub(super) meta: Arc<str>,
}

impl Envelope {
    pub(super) fn new(version: String, capabilities: Value, client_info: Value) -> Envelope {
        let mut envelope = Envelope {
            version,
            capabilities,
            client_info,
            meta: Arc::from(""),
        };
        envelope.meta = envelope.meta_text();
        envelope
    }

    /// Declares other capabilities from now on.
    pub(super) fn set_capabilities(&mut self, capabilities: Value) {
        self.capabilities = capabilities;
        self.meta = self.meta_text();
    }

    /// Adds the envelope to the `_meta` of `params` (keys set already are kept).
    pub(super) fn insert_into(&self, params: &mut Value) {
        meta::insert_meta(params, meta::ENVELOPE_PROTOCOL_VERSION, json!(self.version));
        meta::insert_meta(
            params,
            meta::ENVELOPE_CLIENT_CAPABILITIES,
            self.capabilities.clone(),
        );
        meta::insert_meta(params, meta::ENVELOPE_CLIENT_INFO, self.client_info.clone());
    }

    pub(super) fn meta_text(&self) -> Arc<str> {
        let mut params = Value::Null;
        self.insert_into(&mut params);
        Arc::from(params["_meta"].to_string())
    }
}
