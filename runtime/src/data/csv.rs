//! CSV files: RFC 4180 (quoted fields, doubled quotes, CRLF or LF), a UTF-8 byte-order mark
//! ignored, the first record is the header, records whose fields are all empty are skipped,
//! and every cell's text is read as a scalar (`true`, `false`, `null`, plain decimals).
//! Rows are read one at a time. Duplicate header names, rows with the wrong number of
//! fields, unclosed quotes, text that is not UTF-8 and every size limit are located errors.

use crate::codes::RunCode;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Map;

use super::coerce::infer_scalar;
use super::error::{DataError, DataLocation, Snippet};
use super::{How, Item, Locator, Origin, Rows};

/// Largest data file (`MCP-DATA-005`).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Largest CSV field (`MCP-DATA-026`).
pub const MAX_FIELD_BYTES: usize = 1024 * 1024;
/// Most CSV columns (`MCP-DATA-027`).
pub const MAX_COLUMNS: usize = 1000;
/// Most CSV rows (`MCP-DATA-028`).
pub const MAX_ROWS: u64 = 1_000_000;

/// Opens a data file after checking it exists and is at most `limit` bytes (`MCP-DATA-005`).
pub fn open_checked(path: &Path, shown: &str, limit: u64) -> Result<(File, u64), DataError> {
    let file = File::open(path).map_err(|e| {
        DataError::new(
            RunCode::DataUnreadable,
            format!("Cannot read the data file: {e}."),
        )
        .in_file(shown)
        .help("check the path; it is relative to the suite file's folder")
    })?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit {
        return Err(DataError::new(
            RunCode::DataFileTooLarge,
            format!(
                "The data file has {len} bytes, more than the limit of {limit} bytes ({} MiB).",
                limit / (1024 * 1024)
            ),
        )
        .in_file(shown)
        .help("split the file, or load the rows from a database or a plugin"));
    }
    Ok((file, len))
}

/// Opens a CSV file and reads its header; the rows follow lazily.
pub fn open(path: &Path, shown: &str) -> Result<(Rows<'static>, Locator), DataError> {
    let (file, len) = open_checked(path, shown, MAX_FILE_BYTES)?;
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::with_capacity(64 * 1024, file));
    let mut record = ::csv::StringRecord::new();
    let mut headers = Vec::new();
    let mut header_line = 1;
    loop {
        let more = reader
            .read_record(&mut record)
            .map_err(|e| read_error(e, shown, path))?;
        if !more {
            break;
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        header_line = record.position().map_or(1, |p| p.line());
        let byte = record.position().map_or(0, |p| p.byte());
        if record.len() > MAX_COLUMNS {
            return Err(DataError::new(
                RunCode::TooManyColumns,
                format!(
                    "The header has {} columns, more than the limit of {MAX_COLUMNS}.",
                    record.len()
                ),
            )
            .at(line_location(shown, path, header_line, byte, None, "")));
        }
        for (i, name) in record.iter().enumerate() {
            check_field(name, shown, path, header_line, byte, i)?;
            if let Some(first) = headers.iter().position(|h: &String| h == name) {
                let mut at =
                    line_location(shown, path, header_line, byte, Some(i), "repeated here");
                at.field = Some(name.to_string());
                return Err(DataError::new(
                    RunCode::DuplicateHeader,
                    format!(
                        "The header names column \"{name}\" twice (columns {} and {}).",
                        first + 1,
                        i + 1
                    ),
                )
                .at(at)
                .help("give every column its own name"));
            }
            headers.push(name.to_string());
        }
        break;
    }
    let locator = Locator {
        file: shown.to_string(),
        how: How::Csv {
            path: path.to_path_buf(),
            headers: headers.clone(),
        },
    };
    let rows = CsvRows {
        reader,
        record,
        headers,
        shown: shown.to_string(),
        path: path.to_path_buf(),
        count: 0,
        last_start: None,
        file_len: len,
        done: false,
    };
    let _ = header_line;
    Ok((Box::new(rows), locator))
}

fn check_field(
    text: &str,
    shown: &str,
    path: &Path,
    line: u64,
    byte: u64,
    index: usize,
) -> Result<(), DataError> {
    if text.len() > MAX_FIELD_BYTES {
        return Err(DataError::new(
            RunCode::CsvFieldTooLarge,
            format!(
                "Field {} has {} bytes, more than the limit of {MAX_FIELD_BYTES} bytes (1 MiB).",
                index + 1,
                text.len()
            ),
        )
        .at(line_location(
            shown,
            path,
            line,
            byte,
            Some(index),
            "too long",
        )));
    }
    Ok(())
}

fn read_error(e: ::csv::Error, shown: &str, path: &Path) -> DataError {
    let pos = e.position().cloned();
    match e.into_kind() {
        ::csv::ErrorKind::Utf8 { pos: Some(p), err } => DataError::new(
            RunCode::DataSyntax,
            format!(
                "Field {} is not UTF-8 text (invalid byte at offset {} of the field).",
                err.field() + 1,
                err.valid_up_to()
            ),
        )
        .at(line_location(
            shown,
            path,
            p.line(),
            p.byte(),
            Some(err.field()),
            "not UTF-8",
        ))
        .help("save the file as UTF-8"),
        ::csv::ErrorKind::Io(io) => DataError::new(
            RunCode::DataUnreadable,
            format!("Cannot read the data file: {io}."),
        )
        .in_file(shown),
        other => {
            let mut err = DataError::new(
                RunCode::DataSyntax,
                format!("The CSV cannot be read: {other:?}."),
            );
            if let Some(p) = pos {
                err = err.at(line_location(shown, path, p.line(), p.byte(), None, ""));
            } else {
                err = err.in_file(shown);
            }
            err
        }
    }
}

struct CsvRows {
    reader: ::csv::Reader<BufReader<File>>,
    record: ::csv::StringRecord,
    headers: Vec<String>,
    shown: String,
    path: PathBuf,
    count: u64,
    last_start: Option<(u64, u64)>,
    file_len: u64,
    done: bool,
}

impl CsvRows {
    fn next_row(&mut self) -> Result<Option<Item>, DataError> {
        loop {
            let more = self
                .reader
                .read_record(&mut self.record)
                .map_err(|e| read_error(e, &self.shown, &self.path))?;
            if !more {
                if let Some((line, byte)) = self.last_start {
                    self.check_closed(line, byte)?;
                }
                return Ok(None);
            }
            let (line, byte) = self
                .record
                .position()
                .map_or((0, 0), |p| (p.line(), p.byte()));
            self.last_start = Some((line, byte));
            if self.record.iter().all(str::is_empty) {
                continue;
            }
            self.count += 1;
            if self.count > MAX_ROWS {
                return Err(DataError::new(
                    RunCode::TooManyRecords,
                    format!("The file has more than {MAX_ROWS} rows."),
                )
                .at(line_location(&self.shown, &self.path, line, byte, None, ""))
                .help("split the file, or filter the rows at their source"));
            }
            if self.record.len() != self.headers.len() {
                let n = self.record.len();
                let mut at = line_location(
                    &self.shown,
                    &self.path,
                    line,
                    byte,
                    (n > self.headers.len()).then_some(self.headers.len()),
                    if n > self.headers.len() {
                        "extra field"
                    } else {
                        "fields missing"
                    },
                );
                at.row = Some(self.count);
                return Err(DataError::new(
                    RunCode::CsvFieldCount,
                    format!(
                        "Row {} has {n} field{}, but the header has {} column{}.",
                        self.count,
                        if n == 1 { "" } else { "s" },
                        self.headers.len(),
                        if self.headers.len() == 1 { "" } else { "s" }
                    ),
                )
                .at(at)
                .help(
                    "give every row one field per header column (quote fields that contain commas)",
                ));
            }
            let mut row = Map::with_capacity(self.headers.len());
            for (i, (name, text)) in self.headers.iter().zip(self.record.iter()).enumerate() {
                check_field(text, &self.shown, &self.path, line, byte, i)?;
                row.insert(name.clone(), infer_scalar(text));
            }
            return Ok(Some(Item {
                row,
                origin: Origin {
                    row: self.count,
                    line: Some(line),
                    byte: Some(byte),
                },
            }));
        }
    }

    /// An opening quote that never closes swallows the rest of the file into the last
    /// record; the reader accepts that silently, so the last record is scanned again.
    fn check_closed(&self, line: u64, byte: u64) -> Result<(), DataError> {
        let Ok(mut f) = File::open(&self.path) else {
            return Ok(());
        };
        let mut raw = Vec::new();
        let to_read = self.file_len.saturating_sub(byte);
        if f.seek(SeekFrom::Start(byte)).is_err() || f.take(to_read).read_to_end(&mut raw).is_err()
        {
            return Ok(());
        }
        let scan = scan_record(&raw);
        if let Some(quote) = scan.unclosed {
            let text = first_line(&raw);
            let mut at = DataLocation {
                file: self.shown.clone(),
                line: Some(line),
                column: Some(char_column(&text, quote)),
                ..DataLocation::default()
            };
            let q = quote.min(text.len()) as u64;
            at.span = Some((byte + q, (byte + q + 1).min(byte + text.len() as u64)));
            at.snippet = Some(Snippet {
                start: quote.min(text.len()),
                end: (quote + 1).min(text.len()),
                text,
                label: "opened here".into(),
            });
            return Err(DataError::new(
                RunCode::UnclosedCsvQuote,
                "A quoted field is never closed: the quote runs to the end of the file.",
            )
            .at(at)
            .help("close the quote, and double any quote inside a quoted field (\"\")"));
        }
        Ok(())
    }
}

impl Iterator for CsvRows {
    type Item = Result<Item, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_row() {
            Ok(Some(item)) => Some(Ok(item)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // A record with the wrong number of fields or an oversized field was read
                // whole: the next record can be read, so its problems are reported too.
                self.done = !matches!(e.code, RunCode::CsvFieldCount | RunCode::CsvFieldTooLarge);
                Some(Err(e))
            }
        }
    }
}

/// Field byte ranges of the record at the start of `raw` (quotes included), and the offset
/// of a quote that never closes.
#[derive(Debug, Default, PartialEq)]
struct Scan {
    fields: Vec<(usize, usize)>,
    unclosed: Option<usize>,
}

fn scan_record(raw: &[u8]) -> Scan {
    let mut scan = Scan::default();
    let mut i = 0;
    loop {
        let start = i;
        if raw.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match raw.get(i) {
                    None => {
                        scan.unclosed = Some(start);
                        scan.fields.push((start, raw.len()));
                        return scan;
                    }
                    Some(b'"') if raw.get(i + 1) == Some(&b'"') => i += 2,
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
        }
        while let Some(&c) = raw.get(i) {
            if c == b',' || c == b'\n' || c == b'\r' {
                break;
            }
            i += 1;
        }
        scan.fields.push((start, i));
        match raw.get(i) {
            Some(b',') => i += 1,
            _ => return scan,
        }
    }
}

fn first_line(raw: &[u8]) -> String {
    let end = raw
        .iter()
        .position(|c| *c == b'\n' || *c == b'\r')
        .unwrap_or(raw.len());
    let text = String::from_utf8_lossy(&raw[..end]).into_owned();
    text.strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text)
}

fn char_column(text: &str, byte: usize) -> u64 {
    let mut b = byte.min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    text[..b].chars().count() as u64 + 1
}

/// The location of field `index` of the record starting at `byte` (line `line`), with the
/// line and a caret under the field (the line's end when the field is absent).
fn line_location(
    shown: &str,
    path: &Path,
    line: u64,
    byte: u64,
    index: Option<usize>,
    label: &str,
) -> DataLocation {
    let mut at = DataLocation {
        file: shown.to_string(),
        line: Some(line),
        ..DataLocation::default()
    };
    let Some(raw) = read_at(path, byte) else {
        return at;
    };
    // A byte-order mark is not part of the first field.
    let skip = if raw.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let raw = &raw[skip..];
    let text = first_line(raw);
    let scan = scan_record(raw);
    let (start, end) = match index.and_then(|i| scan.fields.get(i)) {
        Some(&(s, e)) => (s.min(text.len()), e.min(text.len())),
        None => (text.len(), text.len()),
    };
    at.column = Some(char_column(&text, start));
    let from = byte + skip as u64;
    at.span = Some((from + start as u64, from + end as u64));
    at.snippet = Some(Snippet {
        text,
        start,
        end,
        label: label.to_string(),
    });
    at
}

/// Up to 64 KiB of the file from `byte`.
fn read_at(path: &Path, byte: u64) -> Option<Vec<u8>> {
    let mut f = File::open(path).ok()?;
    f.seek(SeekFrom::Start(byte)).ok()?;
    let mut raw = Vec::new();
    f.take(64 * 1024).read_to_end(&mut raw).ok()?;
    Some(raw)
}

/// The location of a cell for coercion errors: the row's line with a caret under the field
/// of `field` (by header position).
pub fn locate(
    shown: &str,
    path: &Path,
    headers: &[String],
    origin: &Origin,
    field: Option<&str>,
    label: &str,
) -> DataLocation {
    let mut at = match (origin.line, origin.byte) {
        (Some(line), Some(byte)) => {
            let index = field.and_then(|f| headers.iter().position(|h| h == f));
            line_location(shown, path, line, byte, index, label)
        }
        _ => DataLocation {
            file: shown.to_string(),
            ..DataLocation::default()
        },
    };
    at.row = Some(origin.row);
    at.field = field.map(str::to_string);
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_fields_and_quotes() {
        assert_eq!(
            scan_record(b"a,\"b,\"\"c\",d\nnext"),
            Scan {
                fields: vec![(0, 1), (2, 9), (10, 11)],
                unclosed: None
            }
        );
        assert_eq!(scan_record(b"a,\"b\nc").unclosed, Some(2));
        assert_eq!(scan_record(b"").fields, vec![(0, 0)]);
    }
}
