//! SQL sources in a build without the `sql` feature: refused (`MCP-DATA-040`).

use std::path::Path;
use std::time::Duration;

use mcpr_compiler::ir::DataSource;

use super::super::error::DataError;
use super::super::{DataOptions, Row};

/// Time a query may take unless `timeoutMs` says otherwise (as with the feature).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Refused: this build runs no SQL.
pub fn query_of(_ds: &DataSource) -> Result<String, DataError> {
    Err(super::not_built("SQL (SQLite, PostgreSQL)", "sql"))
}

/// Refused: this build runs no SQL.
pub fn sqlite(
    _path: &Path,
    _shown: &str,
    _query: &str,
    _timeout: Duration,
) -> Result<Vec<Row>, DataError> {
    Err(super::not_built("SQLite", "sql"))
}

/// Refused: this build runs no SQL.
pub async fn postgres(
    _ds: &DataSource,
    _query: &str,
    _opts: &DataOptions,
) -> Result<(Vec<Row>, String), DataError> {
    Err(super::not_built("PostgreSQL", "sql"))
}
