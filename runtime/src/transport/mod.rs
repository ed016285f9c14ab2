//! Transports: how bytes reach a server. Only stdio so far.

pub mod stdio;

pub use stdio::{
    Frame, LineReader, ShutdownReport, ShutdownStage, StdioConfig, StdioProcess,
    kill_all_process_groups,
};
