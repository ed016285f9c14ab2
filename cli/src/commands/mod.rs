//! One module per command.

pub mod adhoc;
pub mod auth_check;
pub mod check;
pub mod compile;
pub mod completions;
pub mod conformance;
pub mod convert;
pub mod driver;
pub mod explain;
pub mod fmt;
pub mod fuzz;
pub mod init;
pub mod lint;
pub mod lsp;
pub mod parity;
pub mod record;
pub mod report;
pub mod run;
pub mod schema;
pub mod snapshot;
pub mod watch;
