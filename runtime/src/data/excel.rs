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

use super::Row;
use super::coerce::js_number;
use super::csv::open_checked;
use super::error::DataError;

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
        other => super::coerce::as_text(&other),
    }
}

/// Reads the rows of sheet `sheet` (the first sheet when `None`).
pub fn load(path: &Path, shown: &str, sheet: Option<&str>) -> Result<Vec<Row>, DataError> {
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
    let Some(header) = lines.next() else {
        return Ok(Vec::new());
    };
    let headers: Vec<(u32, String)> = header
        .iter()
        .map(|(c, d)| (*c, header_text(d)))
        .filter(|(_, h)| !h.is_empty())
        .collect();
    for (i, (_, name)) in headers.iter().enumerate() {
        if headers[..i].iter().any(|(_, h)| h == name) {
            return Err(DataError::new(
                RunCode::DuplicateHeader,
                format!("The header names column \"{name}\" twice."),
            )
            .in_file(shown)
            .help("give every column its own name"));
        }
    }
    Ok(lines
        .map(|cells| {
            let mut row = Map::new();
            for (col, name) in &headers {
                let v = cells
                    .iter()
                    .find(|(c, _)| c == col)
                    .map_or(Value::Null, |(_, d)| cell(d));
                row.insert(name.clone(), v);
            }
            row
        })
        .collect())
}

/// Non-empty rows of a sheet as (column, cell) lists, in order.
type Lines = Vec<Vec<(u32, Data)>>;

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
            lines.push(Vec::new());
        }
        if let Some(line) = lines.last_mut() {
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
    let first_col = range.start().map_or(0, |(_, c)| c);
    Ok(range
        .rows()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|(_, d)| !matches!(d, Data::Empty))
                .map(|(i, d)| (first_col + i as u32, d.clone()))
                .collect::<Vec<_>>()
        })
        .filter(|line| !line.is_empty())
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
