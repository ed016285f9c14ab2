//! Transports: how bytes reach a server: stdio and Streamable HTTP (with its event-stream
//! parser and its authorization hook).

pub mod alarm;
pub mod auth;
pub mod http;
pub mod sse;
pub mod stdio;

pub use stdio::{
    Foreground, ForegroundReader, Frame, LineReader, ShutdownGrace, ShutdownReport, ShutdownStage,
    StdioConfig, StdioProcess, kill_all_process_groups,
};
