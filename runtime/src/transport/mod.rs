//! Transports: how bytes reach a server: stdio and Streamable HTTP.

pub mod http;
pub mod stdio;

pub use stdio::{
    Frame, LineReader, ShutdownReport, ShutdownStage, StdioConfig, StdioProcess,
    kill_all_process_groups,
};
