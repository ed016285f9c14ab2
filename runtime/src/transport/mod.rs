//! Transports: how bytes reach a server: stdio and Streamable HTTP.

pub mod alarm;
pub mod http;
pub mod stdio;

pub use stdio::{
    Foreground, ForegroundReader, Frame, LineReader, ShutdownReport, ShutdownStage, StdioConfig,
    StdioProcess, kill_all_process_groups,
};
