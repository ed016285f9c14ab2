//! The MCP protocol as data: JSON-RPC framing rules, message classification, protocol
//! versions and eras, the 2026 `_meta` envelope and client capabilities.
//!
//! Nothing in here knows about pipes, processes or sockets.

pub mod compact;
pub mod era;
pub mod jsonrpc;
pub mod meta;
pub mod version;

pub use jsonrpc::{IdKey, Incoming, RpcError, classify};
pub use meta::{
    ClientInfo, ENVELOPE_CLIENT_CAPABILITIES, ENVELOPE_CLIENT_INFO, ENVELOPE_LOG_LEVEL,
    ENVELOPE_PROTOCOL_VERSION, ENVELOPE_SERVER_INFO, ENVELOPE_SUBSCRIPTION_ID,
};
pub use version::{Era, HANDSHAKE_VERSIONS, LATEST_HANDSHAKE, MODERN_VERSIONS, ProtocolVersion};
