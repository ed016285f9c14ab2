//! One module per command.

pub mod check;
pub mod compile;
pub mod explain;
