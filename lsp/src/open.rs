//! What the server holds of a document the editor has open, apart from the conversation
//! (`server`) so that the module of each request kind reads it without reading the server.

use crate::analysis::Analysis;
use crate::index::Index;

/// One open document and what the compiler made of it.
pub(crate) struct Open {
    pub analysis: Analysis,
    pub index: Index,
}
