//! Data sources against real files, a real SQLite database, a real PostgreSQL server, a
//! loopback HTTP server and real plugin commands: every provider, the pipeline, the seeded
//! sample, and every limit and coercion failure with its code, message and position.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcpr_compiler::ir::Suite;
use mcpr_runtime::data::{self, DataError, DataOptions, RowSet};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn suite(sources: Value, for_each: Value) -> Suite {
    serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": "true"},
        "tests": [{"name": "T", "steps": [{"tool": {"name": "echo"}}], "forEach": for_each}],
        "dataSources": sources,
    }))
    .unwrap()
}

fn opts(dir: &Path) -> DataOptions {
    DataOptions {
        base_dir: dir.to_path_buf(),
        ..DataOptions::default()
    }
}

async fn load_with(ds: Value, o: &DataOptions) -> Result<RowSet, DataError> {
    let s = suite(json!({"s": ds}), json!({"source": "s"}));
    data::load_suite(&s, o)
        .await
        .map(|r| (*r.by_test[0].clone().unwrap()).clone())
        .map_err(|e| e.first().clone())
}

async fn load(dir: &Path, ds: Value) -> Result<RowSet, DataError> {
    load_with(ds, &opts(dir)).await
}

fn rows(set: &RowSet) -> Value {
    Value::Array(set.rows.iter().cloned().map(Value::Object).collect())
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

// ---------------------------------------------------------------- CSV

#[tokio::test]
async fn csv_with_bom_quotes_crlf_coercion_derive_and_where() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "customers.csv",
        "\u{feff}customerId,spend,tier,note,joined\r\nC-1,150,gold,\"says \"\"hi\"\", twice\",2024-03-07\r\n,,,,\r\nC-2,50,silver,,2024-01-01\r\nC-3,250.5,bronze,\"multi\nline\",March 7 2024\r\n",
    );
    let set = load(
        dir.path(),
        json!({
            "file": "customers.csv",
            "columns": {"customerId": {"type": "string", "required": true},
                        "spend": {"type": "number", "required": true},
                        "tier": {"type": "string", "enum": ["gold", "silver", "bronze"]},
                        "joined": {"type": "date"}},
            "derive": {"label": "${customerId}:${tier}", "again": "<${label}>"},
            "where": {"spend": {"greaterThan": 100}}
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&set),
        json!([
            {"customerId": "C-1", "spend": 150, "tier": "gold", "note": "says \"hi\", twice",
             "joined": "2024-03-07T00:00:00.000Z", "label": "C-1:gold", "again": "<C-1:gold>"},
            {"customerId": "C-3", "spend": 250.5, "tier": "bronze", "note": "multi\nline",
             "joined": "2024-03-07T00:00:00.000Z", "label": "C-3:bronze", "again": "<C-3:bronze>"}
        ])
    );
    assert_eq!(
        set.source,
        dir.path().join("customers.csv").display().to_string()
    );
    assert!(set.fingerprint.starts_with("sha256:") && set.fingerprint.len() == 71);
}

#[tokio::test]
async fn csv_coercion_errors_name_file_line_row_column_and_value() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "c.csv",
        "id,spend,tier\nC-1,10,gold\nC-2,abc,gold\n",
    );
    let e = load(
        dir.path(),
        json!({"file": "c.csv", "columns": {"spend": {"type": "number"}}}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-021");
    assert_eq!(
        e.message,
        "Column \"spend\" must be a number, but row 2 has \"abc\"."
    );
    let at = e.at.clone().unwrap();
    assert_eq!((at.line, at.column, at.row), (Some(3), Some(5), Some(2)));
    assert_eq!(at.field.as_deref(), Some("spend"));
    let shown = format!("{}", dir.path().join("c.csv").display());
    assert_eq!(
        e.render(false),
        format!(
            "MCP-DATA-021 {shown}:3:5 (data source \"s\", row 2, column \"spend\")\n  |\n3 | C-2,abc,gold\n  |     ^^^ not a number\nColumn \"spend\" must be a number, but row 2 has \"abc\".\nTry: fix the value in the data, or declare the column with another type\n"
        )
    );

    write(dir.path(), "r.csv", "id,tier\n1,gold\n2,\n");
    let e = load(
        dir.path(),
        json!({"file": "r.csv", "columns": {"tier": {"required": true}}}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-020");
    assert_eq!(
        e.message,
        "Column \"tier\" is required, but row 2 has no value."
    );
    assert_eq!(e.at.as_ref().unwrap().line, Some(3));
    assert_eq!(e.at.as_ref().unwrap().column, Some(3));

    let e = load(
        dir.path(),
        json!({"file": "r.csv", "columns": {"tier": {"enum": ["silver"]}}}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-022");
    assert_eq!(
        e.message,
        "Column \"tier\" must be one of \"silver\", but row 1 has \"gold\"."
    );

    for (kind, bad) in [("boolean", "maybe"), ("date", "someday"), ("json", "{nope")] {
        write(dir.path(), "k.csv", format!("id,v\n1,{bad}\n"));
        let e = load(
            dir.path(),
            json!({"file": "k.csv", "columns": {"v": {"type": kind}}}),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "MCP-DATA-021", "{kind}");
        assert!(e.message.contains(&format!("\"{bad}\"")), "{}", e.message);
        assert_eq!(e.at.as_ref().unwrap().line, Some(2));
    }
}

#[tokio::test]
async fn csv_structure_errors_are_located() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "dup.csv", "id,name,id\n1,a,2\n");
    let e = load(dir.path(), json!({"file": "dup.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-006");
    assert_eq!(
        e.message,
        "The header names column \"id\" twice (columns 1 and 3)."
    );
    let at = e.at.unwrap();
    assert_eq!((at.line, at.column), (Some(1), Some(9)));

    write(dir.path(), "ragged.csv", "a,b\n1,2\n3,4,5\n");
    let e = load(dir.path(), json!({"file": "ragged.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-034");
    assert_eq!(
        e.message,
        "Row 2 has 3 fields, but the header has 2 columns."
    );
    let at = e.at.unwrap();
    assert_eq!((at.line, at.column), (Some(3), Some(5)));

    write(dir.path(), "short.csv", "a,b\n1\n");
    let e = load(dir.path(), json!({"file": "short.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-034");
    assert_eq!(e.at.unwrap().line, Some(2));

    write(dir.path(), "open.csv", "a,b\n1,2\n3,\"never closed\n4,5\n");
    let e = load(dir.path(), json!({"file": "open.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-007");
    let at = e.at.unwrap();
    assert_eq!((at.line, at.column), (Some(3), Some(3)));

    write(dir.path(), "latin1.csv", b"a,b\n1,caf\xe9\n");
    let e = load(dir.path(), json!({"file": "latin1.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-033");
    assert_eq!(e.at.unwrap().line, Some(2));

    let e = load(dir.path(), json!({"file": "nowhere.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-032");
}

#[tokio::test]
async fn csv_limits() {
    let dir = tempfile::tempdir().unwrap();
    let header: Vec<String> = (0..1001).map(|i| format!("c{i}")).collect();
    write(dir.path(), "wide.csv", header.join(",") + "\n");
    let e = load(dir.path(), json!({"file": "wide.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-027");

    write(
        dir.path(),
        "field.csv",
        format!("a\n{}\n", "x".repeat(1024 * 1024 + 1)),
    );
    let e = load(dir.path(), json!({"file": "field.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-026");
    assert_eq!(e.at.unwrap().line, Some(2));

    let big = std::fs::File::create(dir.path().join("big.csv")).unwrap();
    big.set_len(10 * 1024 * 1024 + 1).unwrap();
    let e = load(dir.path(), json!({"file": "big.csv"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-005");
    assert!(e.message.contains("10485761 bytes"), "{}", e.message);

    // 1,000,001 one-byte rows stay under 10 MiB.
    let mut text = String::from("a\n");
    text.push_str(&"1\n".repeat(1_000_001));
    write(dir.path(), "long.csv", text);
    let e = load(dir.path(), json!({"file": "long.csv", "where": {"a": 2}}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-028");
    assert_eq!(e.at.unwrap().line, Some(1_000_002));
}

#[tokio::test]
async fn the_row_limit_is_max_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("n\n");
    for i in 0..20 {
        text.push_str(&format!("{i}\n"));
    }
    write(dir.path(), "n.csv", text);
    let mut o = opts(dir.path());
    o.max_rows = 10;
    let e = load_with(json!({"file": "n.csv"}), &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-002");
    assert_eq!(
        e.message,
        // Issue 23: the count is exact, not "more than 10 …, more than the limit of 10".
        "The source gives 20 rows after its pipeline, more than the limit of 10 (--max-rows)."
    );
    // Filtering or sampling below the limit is fine; a sample above it is not.
    let ok = load_with(
        json!({"file": "n.csv", "where": {"n": {"lessThan": 10}}}),
        &o,
    )
    .await
    .unwrap();
    assert_eq!(ok.rows.len(), 10);
    let e = load_with(json!({"file": "n.csv", "sample": {"every": 1}}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-002");
    assert!(e.message.contains("gives 20 rows"), "{}", e.message);
    let e = load_with(json!({"file": "n.csv", "sample": {"first": 0}}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-023");
}

// ---------------------------------------------------------------- sampling

#[tokio::test]
async fn the_seeded_sample_picks_the_rows_computed_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "five.csv", "id\na\nb\nc\nd\ne\n");
    // Seed 42, 5 rows, count 2. s = (s × 1664525 + 1013904223) mod 2³², r = s / 2³²:
    //   i=4: s=1083814273, r=0.25234…, j=floor(r×5)=1 → swap 4,1 → [0,4,2,3,1]
    //   i=3: s=378494188,  r=0.08812…, j=floor(r×4)=0 → swap 3,0 → [3,4,2,0,1]
    //   i=2: s=2479403867, r=0.57728…, j=floor(r×3)=1 → swap 2,1 → [3,2,4,0,1]
    //   i=1: s=955863294,  r=0.22255…, j=floor(r×2)=0 → swap 1,0 → [2,3,4,0,1]
    // The first two positions are 2 and 3: rows c and d, in source order.
    let set = load(
        dir.path(),
        json!({"file": "five.csv", "sample": {"count": 2, "seed": 42}}),
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"id": "c"}, {"id": "d"}]));
    // No seed means 42.
    let set = load(
        dir.path(),
        json!({"file": "five.csv", "sample": {"count": 2}}),
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"id": "c"}, {"id": "d"}]));
    // Seed 7, 6 rows, count 3: the j sequence is 1, 4, 2, 2, 0, leaving [5,0,3,2,4,1];
    // positions 0, 3 and 5 are kept.
    write(dir.path(), "six.csv", "id\n0\n1\n2\n3\n4\n5\n");
    let set = load(
        dir.path(),
        json!({"file": "six.csv", "sample": {"count": 3, "seed": 7}}),
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"id": 0}, {"id": 3}, {"id": 5}]));
    // Seed 2025 over 10 rows after a filter, count 3: positions 1, 6, 7 of the filtered rows.
    let mut text = String::from("n,keep\n");
    for i in 0..20 {
        text.push_str(&format!("{i},{}\n", i % 2 == 0));
    }
    write(dir.path(), "twenty.csv", text);
    let set = load(
        dir.path(),
        json!({"file": "twenty.csv", "where": {"keep": true}, "sample": {"count": 3, "seed": 2025}}),
    )
    .await
    .unwrap();
    let ns: Vec<i64> = set.rows.iter().map(|r| r["n"].as_i64().unwrap()).collect();
    assert_eq!(ns, [2, 12, 14]);
}

// ---------------------------------------------------------------- JSON and YAML

#[tokio::test]
async fn json_and_yaml_with_dot_paths() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "rows.json",
        r#"{"data": {"items": [{"id": "a", "n": 1}, {"id": "b", "n": 2.0}]}}"#,
    );
    let set = load(
        dir.path(),
        json!({"file": "rows.json", "path": "data.items"}),
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&set),
        json!([{"id": "a", "n": 1}, {"id": "b", "n": 2.0}])
    );
    write(
        dir.path(),
        "rows.yaml",
        "cases:\n  - id: a\n    country: NO\n    flag: yes\n  - id: b\n    country: SE\n    flag: true\n",
    );
    let set = load(dir.path(), json!({"file": "rows.yaml", "path": "cases"}))
        .await
        .unwrap();
    // YAML 1.2 core schema: NO and yes stay text.
    assert_eq!(
        rows(&set),
        json!([{"id": "a", "country": "NO", "flag": "yes"}, {"id": "b", "country": "SE", "flag": true}])
    );
    let e = load(
        dir.path(),
        json!({"file": "rows.json", "path": "data.nothing"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-011");
    assert_eq!(
        e.message,
        "The document has nothing at `data.nothing` (path `data.nothing`)."
    );
    let e = load(dir.path(), json!({"file": "rows.json"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-011");
    write(dir.path(), "mixed.json", r#"[{"a": 1}, 2]"#);
    let e = load(dir.path(), json!({"file": "mixed.json"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-011");
    assert!(e.message.starts_with("Item 2 of"), "{}", e.message);
    write(dir.path(), "broken.json", "[{\"a\": 1},\n {\"b\" 2}]");
    let e = load(dir.path(), json!({"file": "broken.json"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-033");
    assert_eq!(e.at.unwrap().line, Some(2));
}

#[tokio::test]
async fn yaml_limits_and_unsafe_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut aliases = String::from("base: &b {x: 1}\nrows:\n");
    for _ in 0..21 {
        aliases.push_str("  - *b\n");
    }
    write(dir.path(), "aliases.yaml", aliases);
    let e = load(dir.path(), json!({"file": "aliases.yaml", "path": "rows"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-029");
    assert_eq!(e.message, "The YAML document has more than 20 aliases.");

    let deep = format!("{}1{}", "[".repeat(60), "]".repeat(60));
    write(dir.path(), "deep.yaml", deep);
    let e = load(dir.path(), json!({"file": "deep.yaml"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-029");

    let mut many = String::new();
    for i in 0..50_001 {
        many.push_str(&format!("- {{a: {i}}}\n"));
    }
    write(dir.path(), "many.yaml", many);
    let e = load(dir.path(), json!({"file": "many.yaml"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-030");

    write(
        dir.path(),
        "proto.yaml",
        "- id: 1\n  __proto__: {admin: true}\n",
    );
    let e = load(dir.path(), json!({"file": "proto.yaml"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-031");

    write(dir.path(), "dupkey.yaml", "- id: 1\n  id: 2\n");
    let e = load(dir.path(), json!({"file": "dupkey.yaml"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-033");
    assert_eq!(e.at.unwrap().line, Some(2));
}

// ---------------------------------------------------------------- Excel

fn workbook(path: &Path) {
    use rust_xlsxwriter::Workbook;
    let mut wb = Workbook::new();
    let first = wb.add_worksheet().set_name("Intro").unwrap();
    first.write_string(0, 0, "note").unwrap();
    first.write_string(1, 0, "first sheet").unwrap();
    let sheet = wb.add_worksheet().set_name("Cases").unwrap();
    for (c, h) in ["caseId", "a", "b", "ratio", "ok"].iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    sheet.write_string(1, 0, "one").unwrap();
    sheet.write_number(1, 1, 2.0).unwrap();
    sheet.write_number(1, 2, 3.0).unwrap();
    sheet.write_number(1, 3, 0.25).unwrap();
    sheet.write_boolean(1, 4, true).unwrap();
    sheet.write_string(3, 0, "two").unwrap();
    sheet.write_number(3, 1, -7.0).unwrap();
    wb.save(path).unwrap();
}

#[tokio::test]
async fn excel_sheets_by_name_and_first_by_default() {
    let dir = tempfile::tempdir().unwrap();
    workbook(&dir.path().join("book.xlsx"));
    let set = load(dir.path(), json!({"file": "book.xlsx", "sheet": "Cases"}))
        .await
        .unwrap();
    assert_eq!(
        rows(&set),
        json!([
            {"caseId": "one", "a": 2, "b": 3, "ratio": 0.25, "ok": true},
            {"caseId": "two", "a": -7, "b": null, "ratio": null, "ok": null}
        ])
    );
    let set = load(dir.path(), json!({"file": "book.xlsx"}))
        .await
        .unwrap();
    assert_eq!(rows(&set), json!([{"note": "first sheet"}]));
    let e = load(dir.path(), json!({"file": "book.xlsx", "sheet": "cases"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-008");
    assert_eq!(
        e.message,
        "The workbook has no sheet \"cases\"; its sheets are \"Intro\", \"Cases\"."
    );
    write(dir.path(), "fake.xlsx", "id,name\n1,a\n");
    let e = load(dir.path(), json!({"file": "fake.xlsx"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-019");
    let bytes = std::fs::read(dir.path().join("book.xlsx")).unwrap();
    write(dir.path(), "cut.xlsx", &bytes[..bytes.len() / 2]);
    let e = load(dir.path(), json!({"file": "cut.xlsx"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-019");
    // Two cells far apart would make a dense 6,291,456-cell range; cells are counted instead,
    // and a sheet with more than 2,000,000 of them is refused.
    {
        use rust_xlsxwriter::Workbook;
        let mut wb = Workbook::new();
        let sheet = wb.add_worksheet();
        sheet.write_string(0, 0, "id").unwrap();
        sheet.write_string(1_048_575, 5, "far away").unwrap();
        wb.save(dir.path().join("sparse.xlsx")).unwrap();
    }
    let set = load(dir.path(), json!({"file": "sparse.xlsx"}))
        .await
        .unwrap();
    assert_eq!(rows(&set), json!([{"id": null}]));
    let big = std::fs::File::create(dir.path().join("huge.xlsx")).unwrap();
    big.set_len(25 * 1024 * 1024 + 1).unwrap();
    let e = load(dir.path(), json!({"file": "huge.xlsx"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-018");
}

// ---------------------------------------------------------------- joins, cache, inline

#[tokio::test]
async fn joins_between_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "people.csv", "id,name\n1,Ada\n2,Bob\n3,Cy\n");
    write(
        dir.path(),
        "tiers.json",
        r#"[{"id": "1", "tier": "gold", "name": "ignored"}, {"id": 3, "tier": "bronze"}]"#,
    );
    let set = load(
        dir.path(),
        json!({"file": "people.csv", "join": {"file": "tiers.json", "on": "id", "prefix": "t_"},
               "derive": {"who": "${name}/${t_tier}"}}),
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&set),
        json!([
            {"id": 1, "name": "Ada", "t_tier": "gold", "t_name": "ignored", "who": "Ada/gold"},
            {"id": 3, "name": "Cy", "t_tier": "bronze", "who": "Cy/bronze"}
        ])
    );
    let left = load(
        dir.path(),
        json!({"file": "people.csv", "join": {"file": "tiers.json", "on": "id", "kind": "left"}}),
    )
    .await
    .unwrap();
    assert_eq!(left.rows.len(), 3);
    assert_eq!(left.rows[0]["name"], json!("Ada"), "base values win");
    let e = load(
        dir.path(),
        json!({"file": "people.csv", "join": {"file": "tiers.json"}}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-024");
}

#[tokio::test]
async fn cached_sources_load_once_per_run() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "count.sh",
        "echo x >> loads.txt\necho '[{\"id\": 1}, {\"id\": 2}]'\n",
    );
    let plugin =
        json!({"provider": "plugin", "command": "sh", "args": ["count.sh"], "cache": true});
    let mut second = plugin.clone();
    second["where"] = json!({"id": 2});
    let s: Suite = serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": "true"},
        "tests": [
            {"name": "A", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "all"}},
            {"name": "B", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "two"}},
            {"name": "C", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "all"}}
        ],
        "dataSources": {"all": plugin, "two": second},
    }))
    .unwrap();
    let mut o = opts(dir.path());
    o.allow_custom_code = true;
    let loaded = data::load_suite(&s, &o).await.unwrap();
    let counts: Vec<usize> = loaded
        .by_test
        .iter()
        .map(|r| r.as_ref().unwrap().rows.len())
        .collect();
    assert_eq!(counts, [2, 1, 2]);
    let loads = std::fs::read_to_string(dir.path().join("loads.txt")).unwrap();
    assert_eq!(
        loads.lines().count(),
        1,
        "one run of the plugin for three uses"
    );
}

#[tokio::test]
async fn env_placeholders_in_settings_and_unknown_sources() {
    let dir = tempfile::tempdir().unwrap();
    // `cargo test` runs tests with CARGO_PKG_NAME set; an unset variable becomes "".
    let name = std::env::var("CARGO_PKG_NAME").expect("run through cargo test");
    write(dir.path(), &format!("{name}.csv"), "id\n7\n");
    let set = load(
        dir.path(),
        json!({"file": "${env.MCPR_SURELY_UNSET_VARIABLE}${env.CARGO_PKG_NAME}.csv"}),
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"id": 7}]));
    let s = suite(json!({}), json!({"source": "missing"}));
    let e = data::load_suite(&s, &opts(dir.path())).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-039");
    let e = load(dir.path(), json!({"file": "rows.txt"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-001");
    // Inline rows go through the same pipeline.
    let set = load(
        dir.path(),
        json!({"rows": [{"id": "a", "n": "1"}, {"id": "b", "n": "x"}], "columns": {"n": {"type": "number"}}}),
    )
    .await
    .unwrap_err();
    assert_eq!(set.code, "MCP-DATA-021");
    assert_eq!(
        set.to_string(),
        "inline: MCP-DATA-021: data source \"s\": row 2: Column \"n\" must be a number, but row 2 has \"x\"."
    );
}

// ---------------------------------------------------------------- SQL

#[tokio::test]
async fn sqlite_queries_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "create table customers (id text, spend real, visits integer, note text, raw blob);
             insert into customers values ('C-1', 150.0, 3, null, x'beef'), ('C-2', 20.5, 1, 'hi', null);",
        )
        .unwrap();
    }
    let set = load(
        dir.path(),
        json!({"provider": "sql", "file": "shop.db", "query": "select * from customers order by id"}),
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&set),
        json!([
            {"id": "C-1", "spend": 150, "visits": 3, "note": null, "raw": "beef"},
            {"id": "C-2", "spend": 20.5, "visits": 1, "note": "hi", "raw": null}
        ])
    );
    // The provider is inferred from a database file with a query.
    let set = load(
        dir.path(),
        json!({"file": "shop.db", "query": "select id from customers where visits > 2"}),
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"id": "C-1"}]));
    let e = load(
        dir.path(),
        json!({"provider": "sql", "file": "shop.db", "query": "delete from customers"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-037");
    let c = rusqlite::Connection::open(&db).unwrap();
    let n: i64 = c
        .query_row("select count(*) from customers", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2, "the query could not write");
    let e = load(
        dir.path(),
        json!({"provider": "sql", "file": "shop.db", "query": "select * from nope"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-037");
    assert!(e.message.contains("no such table: nope"), "{}", e.message);
    let e = load(
        dir.path(),
        json!({"provider": "sql", "file": "shop.db", "module": "./sql.mjs"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-012");
}

/// A throwaway PostgreSQL cluster on a free port, stopped when dropped.
struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_root: bool,
}

fn pg_bin() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin"))
            .collect();
        versions.sort();
        versions.reverse();
        candidates.extend(versions);
    }
    candidates
        .into_iter()
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
}

impl Postgres {
    fn command(&self, program: &str) -> std::process::Command {
        let tool = self.bin.join(program);
        if self.as_root {
            // initdb and the server refuse to run as root.
            let mut c = std::process::Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(tool);
            c
        } else {
            std::process::Command::new(tool)
        }
    }

    fn start() -> Option<Postgres> {
        let Some(bin) = pg_bin() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs the `postgresql` package"
            );
            eprintln!("skipping: PostgreSQL binaries not found (install the `postgresql` package)");
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("mcpr-pg")
            .tempdir()
            .unwrap();
        let as_root = nix_is_root();
        if as_root {
            let ok = std::process::Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(dir.path())
                .status()
                .unwrap()
                .success();
            assert!(ok, "chown to postgres failed");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let pg = Postgres {
            dir,
            bin,
            port,
            as_root,
        };
        let data = pg.dir.path().join("data");
        let out = pg
            .command("initdb")
            .args([
                "-U",
                "mcpr",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-D",
            ])
            .arg(&data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            pg.port,
            pg.dir.path().display()
        );
        let out = pg
            .command("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(&data)
            .args(["-l"])
            .arg(pg.dir.path().join("log"))
            .args(["-o", &options, "start"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            std::fs::read_to_string(pg.dir.path().join("log")).unwrap_or_default()
        );
        Some(pg)
    }
}

fn nix_is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-m", "immediate", "-D"])
            .arg(self.dir.path().join("data"))
            .arg("stop")
            .output();
    }
}

#[tokio::test]
async fn postgresql_queries_over_the_network() {
    let Some(pg) = Postgres::start() else { return };
    let conn = format!("host=127.0.0.1 port={} user=mcpr dbname=postgres", pg.port);
    let (client, connection) = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(
            "create table customers (id text primary key, spend numeric(10,2), visits int, vip boolean, meta jsonb, joined date);
             insert into customers values ('C-1', 150.50, 3, true, '{\"tier\": \"gold\"}', '2024-03-07'),
                                          ('C-2', 20, 1, false, null, null);",
        )
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ds = json!({"provider": "sql", "connection": conn, "query": "select * from customers order by id",
                    "columns": {"joined": {"type": "date"}}, "derive": {"tier": "${meta.tier}"}});
    // A network database needs --allow-remote-data, and loopback --allow-private-network.
    let e = load(dir.path(), ds.clone()).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-009");
    let mut o = opts(dir.path());
    o.allow_remote_data = true;
    let e = load_with(ds.clone(), &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-017");
    o.allow_private_network = true;
    let set = load_with(ds, &o).await.unwrap();
    assert_eq!(
        rows(&set),
        json!([
            {"id": "C-1", "spend": 150.5, "visits": 3, "vip": true, "meta": {"tier": "gold"},
             "joined": "2024-03-07T00:00:00.000Z", "tier": "gold"},
            {"id": "C-2", "spend": 20, "visits": 1, "vip": false, "meta": null, "joined": null, "tier": ""}
        ])
    );
    assert_eq!(
        set.source,
        format!("postgresql://127.0.0.1:{}/postgres", pg.port)
    );
    // The URL form and the object form reach the same server; writes are refused.
    let url = format!("postgresql://mcpr@127.0.0.1:{}/postgres", pg.port);
    let e = load_with(
        json!({"provider": "sql", "connection": url, "query": "delete from customers"}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-037");
    assert!(e.message.contains("read-only transaction"), "{}", e.message);
    let set = load_with(
        json!({"provider": "sql", "query": "select count(*) as n from customers",
               "connection": {"host": "127.0.0.1", "port": pg.port, "user": "mcpr", "dbname": "postgres"}}),
        &o,
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"n": 2}]));
    // Nobody listening: an environment failure.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = load_with(
        json!({"provider": "sql", "query": "select 1", "connection": format!("host=127.0.0.1 port={closed} user=x")}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-035");
    assert!(e.is_environment());
}

// ---------------------------------------------------------------- REST and Google Sheets

/// A loopback HTTP/1.1 server answering by path; returns its base URL.
async fn http_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let auth = head
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("x-token: ")
                            .or_else(|| l.strip_prefix("X-Token: "))
                    })
                    .unwrap_or("")
                    .to_string();
                let (status, extra, body): (&str, String, Vec<u8>) = if path == "/rows" {
                    (
                        "200 OK",
                        String::new(),
                        br#"{"data": {"items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}}"#
                            .to_vec(),
                    )
                } else if path == "/auth" {
                    if auth == "s3cret" {
                        ("200 OK", String::new(), br#"[{"ok": true}]"#.to_vec())
                    } else {
                        ("401 Unauthorized", String::new(), b"{}".to_vec())
                    }
                } else if let Some(n) = path.strip_prefix("/hop/") {
                    let n: u32 = n.parse().unwrap_or(0);
                    let next = if n == 0 {
                        "/rows".to_string()
                    } else {
                        format!("/hop/{}", n - 1)
                    };
                    ("302 Found", format!("Location: {next}\r\n"), Vec::new())
                } else if path == "/big" {
                    let mut b = b"[".to_vec();
                    b.extend(std::iter::repeat_n(b' ', 11 * 1024 * 1024));
                    b.extend_from_slice(b"]");
                    ("200 OK", String::new(), b)
                } else if path == "/object" {
                    ("200 OK", String::new(), br#"{"rows": 3}"#.to_vec())
                } else if path.starts_with("/sheets/spreadsheets/sheet-1/values/Cases%20A") {
                    let ok = path.ends_with("?key=k3y");
                    let body = if ok {
                        br#"{"range": "Cases A!A1:C3", "majorDimension": "ROWS", "values": [["caseId", "a", "b"], ["one", "2", "x"], ["two", "3"]]}"#.to_vec()
                    } else {
                        b"{}".to_vec()
                    };
                    (
                        if ok { "200 OK" } else { "403 Forbidden" },
                        String::new(),
                        body,
                    )
                } else {
                    ("404 Not Found", String::new(), b"{}".to_vec())
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

fn remote_opts(dir: &Path) -> DataOptions {
    DataOptions {
        allow_remote_data: true,
        allow_private_network: true,
        ..opts(dir)
    }
}

#[tokio::test]
async fn rest_sources_and_their_safety_checks() {
    let base = http_server().await;
    let dir = tempfile::tempdir().unwrap();
    let ds = json!({"url": format!("{base}/rows"), "path": "data.items"});
    let e = load(dir.path(), ds.clone()).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-009");
    let mut o = opts(dir.path());
    o.allow_remote_data = true;
    let e = load_with(ds.clone(), &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-017");
    assert!(e.message.contains("127.0.0.1"), "{}", e.message);
    let o = remote_opts(dir.path());
    let set = load_with(ds, &o).await.unwrap();
    assert_eq!(
        rows(&set),
        json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    );
    assert_eq!(set.source, format!("{base}/rows"));

    // /hop/2 → /hop/1 → /hop/0 → /rows: three redirects are followed, four are not.
    let set = load_with(
        json!({"url": format!("{base}/hop/2"), "path": "data.items"}),
        &o,
    )
    .await
    .unwrap();
    assert_eq!(set.rows.len(), 2);
    let e = load_with(json!({"url": format!("{base}/hop/3")}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-014");
    let e = load_with(json!({"url": format!("{base}/missing")}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-010");
    assert_eq!(e.message, "The data URL answered HTTP 404 Not Found.");
    let e = load_with(json!({"url": format!("{base}/big")}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-015");
    let e = load_with(json!({"url": format!("{base}/object")}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-011");
    // Headers take ${env.…}; a wrong token is an HTTP error, never echoed.
    let e = load_with(
        json!({"url": format!("{base}/auth"), "headers": {"X-Token": "wrong-${env.MCPR_SURELY_UNSET_VARIABLE}"}}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-010");
    let set = load_with(
        json!({"url": format!("{base}/auth"), "headers": {"X-Token": "s3cret"}}),
        &o,
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"ok": true}]));
    let e = load_with(
        json!({"provider": "rest", "url": base.replace("http://", "http://user:pw@") + "/rows"}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-013");
    assert!(!e.to_string().contains("pw"), "{e}");
    let e = load_with(
        json!({"provider": "rest", "url": "ftp://example.com/rows"}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-013");
    let e = load_with(json!({"url": "http://no-such-host.invalid/rows"}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-016");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = load_with(
        json!({"url": format!("http://127.0.0.1:{closed}/rows")}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-035");
}

#[tokio::test]
async fn google_sheets_through_the_values_api() {
    let base = http_server().await;
    let dir = tempfile::tempdir().unwrap();
    let ds = json!({"provider": "google-sheets", "url": format!("{base}/sheets"), "spreadsheetId": "sheet-1",
                    "range": "Cases A", "apiKey": "k3y"});
    let e = load(dir.path(), ds.clone()).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-009");
    let set = load_with(ds, &remote_opts(dir.path())).await.unwrap();
    assert_eq!(
        rows(&set),
        json!([{"caseId": "one", "a": 2, "b": "x"}, {"caseId": "two", "a": 3, "b": null}])
    );
    assert!(
        !set.source.contains("k3y"),
        "the API key is not shown: {}",
        set.source
    );
    let e = load_with(
        json!({"provider": "google-sheets", "url": format!("{base}/sheets"), "spreadsheetId": "sheet-1",
               "range": "Cases A", "apiKey": "wrong"}),
        &remote_opts(dir.path()),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-010");
    assert!(!e.render(false).contains("wrong"));
}

// ---------------------------------------------------------------- plugins

#[tokio::test]
async fn plugins_print_rows_within_their_limits() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "rows.sh",
        "echo '[{\"id\": \"p1\", \"n\": 1}, {\"id\": \"p2\", \"n\": 2}]'\n",
    );
    let ds = json!({"provider": "plugin", "command": "sh", "args": ["rows.sh"]});
    let e = load(dir.path(), ds.clone()).await.unwrap_err();
    assert_eq!(e.code, "MCP-DATA-003");
    let mut o = opts(dir.path());
    o.allow_custom_code = true;
    let set = load_with(ds, &o).await.unwrap();
    assert_eq!(
        rows(&set),
        json!([{"id": "p1", "n": 1}, {"id": "p2", "n": 2}])
    );
    assert_eq!(set.source, "plugin sh");
    // A relative program path starts in the suite's folder, wherever mcpr runs.
    let script = write(
        dir.path(),
        "rows-exec.sh",
        "#!/bin/sh\necho '[{\"x\": 1}]'\n",
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let set = load_with(
        json!({"provider": "plugin", "command": "./rows-exec.sh"}),
        &o,
    )
    .await
    .unwrap();
    assert_eq!(rows(&set), json!([{"x": 1}]));

    let case = |script: &str| {
        write(dir.path(), "p.sh", script);
        json!({"provider": "plugin", "command": "sh", "args": ["p.sh"], "timeoutMs": 500})
    };
    let started = std::time::Instant::now();
    let e = load_with(case("sleep 30 &\nsleep 30\n"), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-EXT-105");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let e = load_with(case("echo 'no such table' >&2\nexit 3\n"), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-EXT-107");
    assert!(
        e.message.contains("status 3") && e.message.contains("no such table"),
        "{}",
        e.message
    );
    let e = load_with(case("kill -9 $$\n"), &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-EXT-108");
    let e = load_with(case("echo hello\n"), &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-EXT-106");
    let e = load_with(case("echo '{\"rows\": []}'\n"), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-EXT-104");
    let e = load_with(case("head -c 11000000 /dev/zero | tr '\\0' a\n"), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-DATA-036");
    let e = load_with(
        json!({"provider": "plugin", "command": "./no-such-program"}),
        &o,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "MCP-EXT-107");
    let e = load_with(json!({"provider": "plugin", "module": "./rows.mjs"}), &o)
        .await
        .unwrap_err();
    assert_eq!(e.code, "MCP-EXT-103");
    // Without the `environment` permission the plugin sees PATH only.
    let env = case(
        "printf '[{\"home\": \"%s\", \"path\": %s}]' \"$HOME\" \"$([ -n \"$PATH\" ] && echo true || echo false)\"\n",
    );
    let set = load_with(env.clone(), &o).await.unwrap();
    assert_eq!(rows(&set), json!([{"home": "", "path": true}]));
    let mut granted = env;
    granted["permissions"] = json!(["environment"]);
    let set = load_with(granted, &o).await.unwrap();
    assert_eq!(
        set.rows[0]["home"],
        json!(std::env::var("HOME").unwrap_or_default())
    );
}

#[tokio::test]
async fn check_mode_loads_local_files_only() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.csv", "id,n\n1,x\n");
    let s: Suite = serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": "true"},
        "tests": [
            {"name": "T", "steps": [{"tool": {"name": "echo"}}], "forEach": {"file": "bad.csv"}},
            {"name": "N", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "numbers"}},
            {"name": "R", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "remote"}},
            {"name": "P", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "plugin"}}
        ],
        "dataSources": {
            "numbers": {"file": "bad.csv", "columns": {"n": {"type": "number"}}},
            "remote": {"url": "https://example.com/rows"},
            "plugin": {"provider": "plugin", "command": "false"},
            "unused": {"file": "missing.csv"}
        },
    }))
    .unwrap();
    let errors = data::check_suite(&s, &opts(dir.path())).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors.errors[0].code, "MCP-DATA-021");
    assert_eq!(
        errors.errors[0].source_name,
        Some(data::SourceRef::Named("numbers".into()))
    );
    // A source no test uses is not loaded, by `check --data` as by `run`.
    let errors = data::load_suite(&s, &opts(dir.path())).await.unwrap_err();
    assert!(
        errors
            .errors
            .iter()
            .all(|e| !e.to_string().contains("missing.csv"))
    );
    let _ = Arc::new(());
}

#[tokio::test]
async fn plugins_honour_path_as_json_files_do() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "rows.sh",
        "echo '{\"data\": {\"items\": [{\"id\": \"p1\"}, {\"id\": \"p2\"}]}}'\n",
    );
    let mut o = opts(dir.path());
    o.allow_custom_code = true;
    let ds =
        json!({"provider": "plugin", "command": "sh", "args": ["rows.sh"], "path": "data.items"});
    let set = load_with(ds, &o).await.unwrap();
    assert_eq!(rows(&set), json!([{"id": "p1"}, {"id": "p2"}]));
    // A path that leads nowhere is the plugin's output problem (MCP-EXT-104).
    let ds =
        json!({"provider": "plugin", "command": "sh", "args": ["rows.sh"], "path": "data.rows"});
    let e = load_with(ds, &o).await.unwrap_err();
    assert_eq!(e.code, "MCP-EXT-104");
    assert!(
        e.message.contains("nothing at `data.rows`"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn every_bad_value_of_a_source_is_reported_in_order() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "c.csv", "id,n\n1,x\n2,3\n3,y,extra\n4,z\n");
    let s = suite(
        json!({"s": {"file": "c.csv", "columns": {"n": {"type": "number"}}}}),
        json!({"source": "s"}),
    );
    let e = data::load_suite(&s, &opts(dir.path())).await.unwrap_err();
    let found: Vec<(String, Option<u64>)> = e
        .errors
        .iter()
        .map(|e| {
            (
                e.code.as_str().to_string(),
                e.at.as_ref().and_then(|a| a.line),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("MCP-DATA-021".to_string(), Some(2)),
            ("MCP-DATA-034".to_string(), Some(4)),
            ("MCP-DATA-021".to_string(), Some(5)),
        ]
    );
    // Two tests over one broken source: its problems once, and it is not loaded twice.
    let two: Suite = serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": "true"},
        "tests": [
            {"name": "A", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "s"}},
            {"name": "B", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "s"}}
        ],
        "dataSources": {"s": {"file": "c.csv", "columns": {"n": {"type": "number"}}}},
    }))
    .unwrap();
    let e = data::load_suite(&two, &opts(dir.path())).await.unwrap_err();
    assert_eq!(e.len(), 3);
}
