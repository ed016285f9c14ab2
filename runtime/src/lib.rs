//! `mcpr-runtime`: the MCP client core of mcpr.
//!
//! It speaks the protocol itself (both eras: the `initialize` handshake of 2024-11-05 …
//! 2025-11-25 and the stateless 2026-07-28 revision) so that a test can see and report what
//! an SDK would hide, over stdio, Streamable HTTP and the legacy HTTP+SSE transport.
//! Servers are untrusted: every request has a deadline, messages have a size limit, stdout
//! lines (or bodies, or events) that are not JSON-RPC are reported, stderr is drained and
//! its tail kept, and processes are ended with their whole process group.
//!
//! Layers: [`protocol`] (messages and the era rules, no wire) ← [`transport`] (stdio, http)
//! ← [`session`] (one connection; requests go out through [`Session::request`], or
//! [`Session::send`] and [`Session::wait`] when the caller holds the request in flight) ←
//! [`client`] (operations by feature) ← [`adhoc`] (one-shot commands for the CLI).

pub mod adhoc;
pub mod auth;
pub mod budget;
pub mod ci;
pub mod client;
pub mod codes;
pub mod compare;
pub mod conformance;
pub mod context;
pub mod coverage;
pub mod data;
pub mod driver;
pub mod environment;
pub mod error;
pub mod exec;
pub mod explain;
pub mod files;
pub mod functions;
pub mod fuzz;
pub mod init;
pub mod interrupt;
pub mod lint;
pub mod parity;
pub mod protocol;
pub mod record;
pub mod redact;
pub mod report;
pub mod run;
pub mod schedule;
pub mod session;
pub mod snapshot;
pub mod state;
pub mod suites;
pub mod surface;
pub mod toolsnap;
pub mod transcript;
pub mod transport;
pub mod values;
#[cfg(feature = "watch")]
pub mod watch;

pub use client::{CallOptions, Client, Target, ToolCall};
pub use error::{Error, ErrorKind};
pub use session::{ClientBehaviour, Match, ProtocolChoice, RequestOptions, Session, SessionConfig};
pub use transport::stdio::{StdioConfig, kill_all_process_groups};

/// A pinned, boxed, sendable future (without pulling in a futures crate). Also how the
/// rare paths of a call are kept out of its future: behind `dyn`, their code is not
/// inlined into the common path.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;
