//! The data diagnostics corpus (`conformance-tests/data/`): each case is copied into a fresh
//! folder (with its workbook or database written there), checked with `mcpr check --data`,
//! and the output compared with the case's `expected.txt`; `mcpr run` must print the same
//! diagnostics. `MCPR_BLESS=1` rewrites the expected files. Also the JSON shape of data
//! errors (`check --data --format json`) as a snapshot.

mod common;

use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    common::repo_root().join("conformance-tests/data")
}

fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Sheet "Cases" of `book.xlsx`: row 1 empty, the header on row 2 (caseId, a, b, kind), then
/// a good row (3), a row whose required `a` is empty and whose `b` is text (4), and a row
/// whose `kind` is not allowed (5). A first sheet "Notes" comes before it.
fn workbook(path: &Path) {
    use rust_xlsxwriter::Workbook;
    let mut wb = Workbook::new();
    let notes = wb.add_worksheet().set_name("Notes").unwrap();
    notes.write_string(0, 0, "see the Cases sheet").unwrap();
    let sheet = wb.add_worksheet().set_name("Cases").unwrap();
    for (c, h) in ["caseId", "a", "b", "kind"].iter().enumerate() {
        sheet.write_string(1, c as u16, *h).unwrap();
    }
    sheet.write_string(2, 0, "one").unwrap();
    sheet.write_number(2, 1, 1.0).unwrap();
    sheet.write_number(2, 2, 2.0).unwrap();
    sheet.write_string(2, 3, "add").unwrap();
    sheet.write_string(3, 0, "two").unwrap();
    sheet.write_string(3, 2, "three").unwrap();
    sheet.write_string(3, 3, "sub").unwrap();
    sheet.write_string(4, 0, "three").unwrap();
    sheet.write_number(4, 1, 5.0).unwrap();
    sheet.write_number(4, 2, 6.0).unwrap();
    sheet.write_string(4, 3, "mul").unwrap();
    wb.save(path).unwrap();
}

/// `shop.db`: orders 1 (good), 2 (qty is text, placed not a date), 3 (qty NULL).
fn database(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE orders (id INTEGER, qty, placed);
         INSERT INTO orders VALUES (1, 2, '2024-03-07');
         INSERT INTO orders VALUES (2, 'two', 'someday');
         INSERT INTO orders VALUES (3, NULL, '2024-03-08');",
    )
    .unwrap();
}

/// A copy of case `name` in a fresh folder, with its generated files.
fn prepare(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join(name);
    std::fs::create_dir(&to).unwrap();
    for e in std::fs::read_dir(corpus().join(name)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
    match name {
        "excel" => workbook(&to.join("book.xlsx")),
        "sqlite" => database(&to.join("shop.db")),
        _ => {}
    }
    tmp
}

#[test]
fn every_case_reports_every_bad_value_as_expected() {
    let bless = std::env::var_os("MCPR_BLESS").is_some();
    let mut failures = Vec::new();
    let names = cases();
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        let tmp = prepare(name);
        let out = refused(tmp.path(), name, &["check", "--data", name]);
        let got = String::from_utf8(out.stdout).unwrap();
        let file = corpus().join(name).join("expected.txt");
        if bless {
            std::fs::write(&file, &got).unwrap();
        }
        let want = std::fs::read_to_string(&file).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{name}: check --data printed\n{got}\nexpected\n{want}"
            ));
            continue;
        }
        // `run` stops before any test with the same diagnostics (no summary line).
        let out = refused(tmp.path(), name, &["run", &format!("{name}/suite.mcpr")]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        let body = want.trim_end().rsplit_once('\n').map_or("", |(b, _)| b);
        if stderr.trim_end() != body.trim_end() {
            failures.push(format!("{name}: run printed\n{stderr}\nexpected\n{body}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn data_errors_in_json_carry_positions_and_count_in_the_summary() {
    let tmp = prepare("json");
    let out = common::mcpr_in(tmp.path())
        .args(["check", "--data", "--format", "json", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::output_text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["errors"], 4);
    assert_eq!(v["summary"]["dataErrors"], 4);
    insta::assert_json_snapshot!(v);
}

#[test]
fn workbook_cells_have_sheet_positions_in_json() {
    let tmp = prepare("excel");
    let out = common::mcpr_in(tmp.path())
        .args(["check", "--data", "--format", "json", "excel"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells: Vec<(&str, u64, u64)> = v["dataErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["cell"].as_str().unwrap(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [("Cases!B4", 4, 2), ("Cases!C4", 4, 3), ("Cases!D5", 5, 4)]
    );
    assert!(v["dataErrors"][0]["offset"].is_null());
}

/// `mcpr ARGS…` in `dir`, which must stop with exit 2 (the data of case `name` is refused).
fn refused(dir: &Path, name: &str, args: &[&str]) -> std::process::Output {
    let out = common::mcpr_in(dir).args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{name}: {}",
        common::output_text(&out)
    );
    out
}
