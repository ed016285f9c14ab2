//! The mcpr language server (`mcpr lsp`): the compiler's diagnostics, the suite's names and
//! the language's documentation for editors, over the Language Server Protocol on stdio.
//!
//! The server is a thin layer over the compiler. Each open document is compiled as
//! `mcpr check` compiles it ([`analysis`]), with imports read from open documents first and
//! from the disk otherwise; [`index`] lists the names the compilation declares and uses;
//! each request kind has a module that answers it from those two, and [`edits`] proposes the
//! layout of `mcpr fmt` and the diagnostics' fixes. Positions are UTF-16 at
//! the protocol's edge and byte offsets inside ([`store`]). See docs/lsp.md.

pub mod analysis;
mod complete;
mod convert;
mod edits;
mod explain;
mod forms;
pub mod index;
mod navigate;
mod open;
mod outline;
mod scope;
mod server;
pub mod store;
mod tools;

pub use server::{Settings, serve};

/// Serves one client on stdin and stdout until it says `exit` (or closes stdin). The error
/// says why the conversation broke off.
pub fn serve_stdio() -> Result<(), String> {
    let (connection, io) = lsp_server::Connection::stdio();
    serve(&connection, Settings::default())?;
    drop(connection);
    io.join().map_err(|e| format!("stdio: {e}"))
}
