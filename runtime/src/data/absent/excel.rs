//! Excel sources in a build without the `excel` feature: refused (`MCP-DATA-040`).

use std::path::Path;

use serde_json::Value;

use super::super::error::{DataError, DataLocation};
use super::super::{Item, Locator, Origin};

/// A workbook sheet, which this build never reads (no value of it exists).
#[derive(Debug)]
pub enum Sheet {}

impl Sheet {
    /// Never called: no sheet is ever read.
    pub fn locate(
        &self,
        _shown: &str,
        _origin: &Origin,
        _field: Option<&str>,
        _value: Option<&Value>,
        _label: &str,
    ) -> DataLocation {
        match *self {}
    }
}

/// Refused: this build reads no workbooks.
pub fn load(
    _path: &Path,
    _shown: &str,
    _sheet: Option<&str>,
) -> Result<(Vec<Item>, Locator), DataError> {
    Err(super::not_built("Excel", "excel"))
}
