//! Excel workbooks (`.xlsx`, also `.xlsm` and legacy `.xls`) through calamine: the named
//! sheet or the first, the first non-empty row as the header, empty rows skipped, integral
//! numbers as integers, dates as ISO 8601 text. Before the workbook is opened its ZIP
//! container is checked: at most 25 MiB, a real ZIP with a readable central directory, no
//! entry larger than 256 MiB unpacked; a sheet may hold at most 2,000,000 cells.

use crate::codes::RunCode;
use std::io::{Cursor, Read};
use std::path::Path;

use calamine::{Data, Reader};
use serde_json::{Map, Value};

use super::coerce::{as_text, js_number};
use super::csv::open_checked;
use super::error::{DataError, DataLocation, Snippet};
use super::{How, Item, Locator, Origin, pipeline};

/// Largest workbook file (`MCP-DATA-018`).
pub const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;
/// Largest unpacked ZIP entry (`MCP-DATA-018`).
pub const MAX_ENTRY_BYTES: u64 = 256 * 1024 * 1024;
/// Most cells in the sheet read (`MCP-DATA-018`).
pub const MAX_CELLS: usize = 2_000_000;

fn invalid(shown: &str, why: &str) -> DataError {
    DataError::new(
        RunCode::NotAWorkbook,
        format!("The file is not a readable Excel workbook: {why}."),
    )
    .in_file(shown)
    .help("save it again as an .xlsx workbook")
}

fn u16_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes(
        b.get(i..i + 2)?.try_into().ok()?,
    )))
}

fn u32_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes(
        b.get(i..i + 4)?.try_into().ok()?,
    )))
}

/// Checks the ZIP container: signature, central directory, unpacked entry sizes.
fn check_zip(bytes: &[u8], shown: &str) -> Result<(), DataError> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(invalid(shown, "it does not start with a ZIP signature"));
    }
    let search_from = bytes.len().saturating_sub(65_557);
    let eocd = (search_from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| bytes[i..].starts_with(b"PK\x05\x06"))
        .ok_or_else(|| {
            invalid(
                shown,
                "the ZIP directory is missing (is the file cut short?)",
            )
        })?;
    let entries = u16_at(bytes, eocd + 10).unwrap_or(0);
    let dir_offset = u32_at(bytes, eocd + 16).unwrap_or(u64::MAX) as usize;
    let mut at = dir_offset;
    for _ in 0..entries {
        if !bytes
            .get(at..)
            .is_some_and(|b| b.starts_with(b"PK\x01\x02"))
        {
            return Err(invalid(shown, "the ZIP directory is damaged"));
        }
        let unpacked =
            u32_at(bytes, at + 24).ok_or_else(|| invalid(shown, "the ZIP directory is damaged"))?;
        let name_len = u16_at(bytes, at + 28).unwrap_or(0) as usize;
        let extra = u16_at(bytes, at + 30).unwrap_or(0) as usize;
        let comment = u16_at(bytes, at + 32).unwrap_or(0) as usize;
        let name = bytes
            .get(at + 46..at + 46 + name_len)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        if unpacked > MAX_ENTRY_BYTES {
            return Err(DataError::new(
                RunCode::WorkbookTooLarge,
                format!(
                    "Workbook part {name:?} unpacks to {unpacked} bytes, more than the limit of {MAX_ENTRY_BYTES} bytes (256 MiB)."
                ),
            )
            .in_file(shown));
        }
        at += 46 + name_len + extra + comment;
    }
    Ok(())
}

/// An Excel serial date as ISO text.
fn excel_date(d: &calamine::ExcelDateTime) -> Value {
    if d.is_duration() {
        return js_number(d.as_f64()).unwrap_or(Value::Null);
    }
    let (y, mo, da, h, mi, s, ms) = d.to_ymd_hms_milli();
    Value::String(format!(
        "{y:04}-{mo:02}-{da:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z"
    ))
}

fn cell(c: &Data) -> Value {
    match c {
        Data::Int(i) => Value::from(*i),
        Data::Float(f) => js_number(*f).unwrap_or(Value::Null),
        Data::String(s) => Value::String(s.clone()),
        Data::Bool(b) => Value::Bool(*b),
        Data::DateTime(d) => excel_date(d),
        Data::DateTimeIso(s) | Data::DurationIso(s) => Value::String(s.clone()),
        Data::Error(e) => Value::String(e.to_string()),
        Data::Empty => Value::Null,
    }
}

fn header_text(c: &Data) -> String {
    match cell(c) {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => as_text(&other),
    }
}

/// The sheet rows were read from and the column of each header, to name a cell as the sheet
/// does: `Cases!C3` (the sheet's own row number, not the data row).
#[derive(Debug)]
pub struct Sheet {
    name: String,
    columns: Vec<(String, u32)>,
}

/// `A` … `Z`, `AA` … for a 0-based column.
pub fn column_letters(col: u32) -> String {
    let mut n = u64::from(col) + 1;
    let mut out = Vec::new();
    while n > 0 {
        let r = ((n - 1) % 26) as u8;
        out.push(char::from(b'A' + r));
        n = (n - 1) / 26;
    }
    out.iter().rev().collect()
}

/// A sheet name as a cell reference writes it: quoted when it holds more than letters,
/// digits and `_` (`'My cases'!B3`).
fn sheet_ref(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\'', "''"))
    }
}

impl Sheet {
    /// The cell of column `col` (0-based) in sheet row `row` (1-based).
    fn cell(&self, col: u32, row: u64) -> String {
        format!("{}!{}{row}", sheet_ref(&self.name), column_letters(col))
    }

    /// The cell of column `field` in the row `origin` points at, with its value.
    pub fn locate(
        &self,
        shown: &str,
        origin: &Origin,
        field: Option<&str>,
        value: Option<&Value>,
        label: &str,
    ) -> DataLocation {
        let mut at = pipeline::plain_location(shown, origin, field);
        let col = field.and_then(|f| self.columns.iter().find(|(h, _)| h == f).map(|(_, c)| *c));
        if let (Some(col), Some(row)) = (col, origin.line) {
            at.cell = Some(self.cell(col, row));
            at.line = Some(row);
            at.column = Some(u64::from(col) + 1);
            let text = match value {
                None | Some(Value::Null) => String::new(),
                Some(v) => as_text(v),
            };
            at.snippet = Some(Snippet {
                end: text.len(),
                text,
                start: 0,
                label: label.to_string(),
            });
        }
        at
    }
}

/// Reads the rows of sheet `sheet` (the first sheet when `None`), each with its sheet row.
pub fn load(
    path: &Path,
    shown: &str,
    sheet: Option<&str>,
) -> Result<(Vec<Item>, Locator), DataError> {
    let (mut file, len) = open_checked(path, shown, MAX_FILE_BYTES).map_err(|e| {
        if e.code == RunCode::DataFileTooLarge {
            DataError {
                code: RunCode::WorkbookTooLarge,
                ..e
            }
        } else {
            e
        }
    })?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(|e| {
        DataError::new(
            RunCode::DataUnreadable,
            format!("Cannot read the data file: {e}."),
        )
        .in_file(shown)
    })?;
    let is_xls = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xls"));
    if !is_xls {
        check_zip(&bytes, shown)?;
    }
    let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes))
        .map_err(|e| invalid(shown, &e.to_string()))?;
    let names = book.sheet_names();
    let name = match sheet {
        Some(s) => names
            .iter()
            .find(|n| n.as_str() == s)
            .cloned()
            .ok_or_else(|| {
                DataError::new(
                    RunCode::NoSuchSheet,
                    format!(
                        "The workbook has no sheet \"{s}\"; its sheets are {}.",
                        names
                            .iter()
                            .map(|n| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .in_file(shown)
                .help("use one of the sheet names (they are case-sensitive)")
            })?,
        None => names
            .first()
            .cloned()
            .ok_or_else(|| invalid(shown, "it has no sheets"))?,
    };
    let lines = match &mut book {
        calamine::Sheets::Xlsx(x) => streamed(x, &name, shown)?,
        other => dense(other, &name, shown)?,
    };
    let mut lines = lines.into_iter();
    let Some((header_row, header)) = lines.next() else {
        let sheet = Sheet {
            name,
            columns: Vec::new(),
        };
        return Ok((Vec::new(), sheet_locator(shown, sheet)));
    };
    let headers: Vec<(u32, String)> = header
        .iter()
        .map(|(c, d)| (*c, header_text(d)))
        .filter(|(_, h)| !h.is_empty())
        .collect();
    let sheet = Sheet {
        name,
        columns: headers.iter().map(|(c, h)| (h.clone(), *c)).collect(),
    };
    for (i, (col, header)) in headers.iter().enumerate() {
        if headers[..i].iter().any(|(_, h)| h == header) {
            let cell = sheet.cell(*col, u64::from(header_row) + 1);
            return Err(DataError::new(
                RunCode::DuplicateHeader,
                format!("The header names column \"{header}\" twice (again in {cell})."),
            )
            .at(DataLocation {
                file: shown.to_string(),
                line: Some(u64::from(header_row) + 1),
                column: Some(u64::from(*col) + 1),
                field: Some(header.clone()),
                cell: Some(cell),
                ..DataLocation::default()
            })
            .help("give every column its own name"));
        }
    }
    let items = lines
        .enumerate()
        .map(|(i, (sheet_row, cells))| {
            let mut row = Map::new();
            for (col, name) in &headers {
                let v = cells
                    .iter()
                    .find(|(c, _)| c == col)
                    .map_or(Value::Null, |(_, d)| cell(d));
                row.insert(name.clone(), v);
            }
            Item {
                row,
                origin: Origin {
                    row: i as u64 + 1,
                    line: Some(u64::from(sheet_row) + 1),
                    byte: None,
                },
            }
        })
        .collect();
    Ok((items, sheet_locator(shown, sheet)))
}

fn sheet_locator(shown: &str, sheet: Sheet) -> Locator {
    Locator {
        file: shown.to_string(),
        how: How::Sheet(std::sync::Arc::new(sheet)),
    }
}

/// Non-empty rows of a sheet, each with its 0-based sheet row and its (column, cell) list,
/// in order.
type Lines = Vec<(u32, Vec<(u32, Data)>)>;

fn too_many_cells(name: &str, shown: &str) -> DataError {
    DataError::new(
        RunCode::WorkbookTooLarge,
        format!("Sheet \"{name}\" holds more than the limit of {MAX_CELLS} cells."),
    )
    .in_file(shown)
    .help("split the sheet, or export the rows as CSV")
}

/// Reads an `.xlsx` sheet cell by cell (nothing is allocated for empty cells), stopping at
/// the cell limit.
fn streamed(
    book: &mut calamine::Xlsx<Cursor<Vec<u8>>>,
    name: &str,
    shown: &str,
) -> Result<Lines, DataError> {
    let mut reader = book
        .worksheet_cells_reader(name)
        .map_err(|e| invalid(shown, &e.to_string()))?;
    let mut lines: Lines = Vec::new();
    let mut current: Option<u32> = None;
    let mut count = 0usize;
    while let Some(c) = reader
        .next_cell()
        .map_err(|e| invalid(shown, &e.to_string()))?
    {
        let (row, col) = c.get_position();
        let data = Data::from(c.get_value().clone());
        if matches!(data, Data::Empty) {
            continue;
        }
        count += 1;
        if count > MAX_CELLS {
            return Err(too_many_cells(name, shown));
        }
        if current != Some(row) {
            current = Some(row);
            lines.push((row, Vec::new()));
        }
        if let Some((_, line)) = lines.last_mut() {
            line.push((col, data));
        }
    }
    Ok(lines)
}

/// Reads a legacy sheet through calamine's dense range, after checking its size.
fn dense<RS: Read + std::io::Seek>(
    book: &mut calamine::Sheets<RS>,
    name: &str,
    shown: &str,
) -> Result<Lines, DataError> {
    let range = book
        .worksheet_range(name)
        .map_err(|e| invalid(shown, &e.to_string()))?;
    let (h, w) = range.get_size();
    if h.saturating_mul(w) > MAX_CELLS {
        return Err(too_many_cells(name, shown));
    }
    let (first_row, first_col) = range.start().unwrap_or((0, 0));
    Ok(range
        .rows()
        .enumerate()
        .map(|(n, r)| {
            let cells = r
                .iter()
                .enumerate()
                .filter(|(_, d)| !matches!(d, Data::Empty))
                .map(|(i, d)| (first_col + i as u32, d.clone()))
                .collect::<Vec<_>>();
            (first_row + n as u32, cells)
        })
        .filter(|(_, line)| !line.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ZIP whose one directory entry claims `unpacked` bytes.
    fn zip_claiming(unpacked: u32) -> Vec<u8> {
        let mut b = b"PK\x03\x04".to_vec();
        b.extend([0u8; 26]);
        let dir = b.len();
        let mut entry = vec![0u8; 46];
        entry[..4].copy_from_slice(b"PK\x01\x02");
        entry[24..28].copy_from_slice(&unpacked.to_le_bytes());
        entry[28..30].copy_from_slice(&9u16.to_le_bytes());
        b.extend(entry);
        b.extend(b"sheet.xml");
        let mut end = vec![0u8; 22];
        end[..4].copy_from_slice(b"PK\x05\x06");
        end[10..12].copy_from_slice(&1u16.to_le_bytes());
        end[16..20].copy_from_slice(&(dir as u32).to_le_bytes());
        b.extend(end);
        b
    }

    #[test]
    fn zip_entries_are_limited_by_their_unpacked_size() {
        assert!(check_zip(&zip_claiming(1024), "x.xlsx").is_ok());
        let e = check_zip(&zip_claiming(300 * 1024 * 1024), "x.xlsx").unwrap_err();
        assert_eq!(e.code, "MCP-DATA-018");
        assert!(
            e.message
                .contains("\"sheet.xml\" unpacks to 314572800 bytes"),
            "{}",
            e.message
        );
    }

    #[test]
    fn zip_checks() {
        assert_eq!(
            check_zip(b"not a zip", "x.xlsx").unwrap_err().code,
            "MCP-DATA-019"
        );
        assert_eq!(
            check_zip(b"PK\x03\x04 cut short", "x.xlsx")
                .unwrap_err()
                .code,
            "MCP-DATA-019"
        );
    }
}
