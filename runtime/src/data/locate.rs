//! Where a row and its cells are in the data, for messages: a CSV record's line with a caret
//! under the field, the key of a JSON or YAML document (found in a located tree read only
//! when a problem needs it), a workbook cell (`Sheet1!B3`, the sheet's own numbering), or
//! just the row for providers without text.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use mcpr_compiler::lower::yaml::tree::{self, Node};
use mcpr_compiler::source::{SourceFile, Span};
use serde_json::Value;

use super::error::{DataLocation, Snippet};
use super::{Origin, csv, excel, pipeline};

/// Turns a row's origin into a location in the data.
#[derive(Debug, Clone)]
pub struct Locator {
    /// The file (as shown), URL or provider name.
    pub file: String,
    /// How rows are found in it.
    pub how: How,
}

/// What a locator knows of the data.
#[derive(Debug, Clone)]
pub enum How {
    /// The row number only.
    Plain,
    /// A CSV file on disk and its header: the record's line is read again.
    Csv {
        /// The file on disk.
        path: PathBuf,
        /// The header, to find a column's field.
        headers: Vec<String>,
    },
    /// A JSON or YAML document.
    Document(Arc<Document>),
    /// A workbook sheet.
    Sheet(Arc<excel::Sheet>),
}

impl Locator {
    /// A locator that names the file (or URL or provider) and the row only.
    pub fn plain(file: &str) -> Locator {
        Locator {
            file: file.to_string(),
            how: How::Plain,
        }
    }

    /// The location of column `field` (holding `value`) of the row `origin` points at.
    pub fn locate(
        &self,
        origin: &Origin,
        field: Option<&str>,
        value: Option<&Value>,
        label: &str,
    ) -> DataLocation {
        match &self.how {
            How::Csv { path, headers } => {
                csv::locate(&self.file, path, headers, origin, field, label)
            }
            How::Document(doc) => doc.locate(&self.file, origin, field, label),
            How::Sheet(sheet) => sheet.locate(&self.file, origin, field, value, label),
            How::Plain => pipeline::plain_location(&self.file, origin, field),
        }
    }
}

/// A JSON or YAML data file's text, and the dot path to its rows.
#[derive(Debug)]
pub struct Document {
    text: String,
    /// Bytes before `text` in the file (a byte-order mark).
    skipped: u64,
    path: Vec<String>,
    read: OnceLock<Option<(Node, SourceFile)>>,
}

impl Document {
    /// The document `text` (after `skipped` bytes of the file), its rows under `path`.
    pub fn new(text: String, skipped: u64, path: Option<&str>) -> Document {
        Document {
            text,
            skipped,
            path: path
                .filter(|p| !p.is_empty())
                .map(|p| p.split('.').map(str::to_string).collect())
                .unwrap_or_default(),
            read: OnceLock::new(),
        }
    }

    /// The located tree and line index, read the first time a problem needs them; `None`
    /// when the text cannot be read as a tree (aliases): then only the row is named.
    fn tree(&self) -> Option<&(Node, SourceFile)> {
        self.read
            .get_or_init(|| {
                let node = tree::read(&self.text).ok()?;
                Some((node, SourceFile::new("", self.text.clone())))
            })
            .as_ref()
    }

    /// The node of row `row` (1-based).
    fn item(&self, row: u64) -> Option<(&Node, &SourceFile)> {
        let (root, file) = self.tree()?;
        let mut node = root;
        for part in &self.path {
            node = match &node.kind {
                tree::Kind::Map(_) => &node.get(part)?.value,
                tree::Kind::Seq(items) => items.get(part.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        let item = node
            .items()
            .get(usize::try_from(row).ok()?.checked_sub(1)?)?;
        Some((item, file))
    }

    fn locate(
        &self,
        shown: &str,
        origin: &Origin,
        field: Option<&str>,
        label: &str,
    ) -> DataLocation {
        let mut at = pipeline::plain_location(shown, origin, field);
        let Some((item, file)) = self.item(origin.row) else {
            return at;
        };
        // The value of the column, or the row itself when the column is absent.
        let span = match field.and_then(|f| item.get(f)) {
            Some(entry) => entry.value.span,
            None => Span::at(item.span.start as usize),
        };
        fill(&mut at, file, span, self.skipped, label);
        at
    }

    /// The location of item `index` (0-based) of the rows, for an item that is not a row.
    pub fn locate_item(&self, shown: &str, index: usize, label: &str) -> DataLocation {
        let origin = Origin {
            row: index as u64 + 1,
            ..Origin::default()
        };
        let mut at = pipeline::plain_location(shown, &origin, None);
        if let Some((item, file)) = self.item(origin.row) {
            fill(&mut at, file, item.span, self.skipped, label);
        }
        at
    }
}

/// Line, column, caret and byte span of `span` in `file`.
fn fill(at: &mut DataLocation, file: &SourceFile, span: Span, skipped: u64, label: &str) {
    let start = span.start as usize;
    let line = file.line_index(start);
    let line_span = file.line_span(line);
    let text = file.line_text(line).to_string();
    let from =
        start.clamp(line_span.start as usize, line_span.end as usize) - line_span.start as usize;
    let to = (span.end as usize).clamp(start, line_span.end as usize) - line_span.start as usize;
    at.line = Some(line as u64 + 1);
    at.column = Some(text[..from].chars().count() as u64 + 1);
    at.span = Some((
        skipped + (line_span.start as usize + from) as u64,
        skipped + (line_span.start as usize + to) as u64,
    ));
    at.snippet = Some(Snippet {
        text,
        start: from,
        end: to,
        label: label.to_string(),
    });
}
