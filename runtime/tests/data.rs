//! Data sources read from files: CSV, JSON, YAML and Excel, the seeded sample, joins,
//! caching, inline rows, and every limit and coercion failure with its code, message and
//! position. (Databases, HTTP services and plugins: `data_services.rs`.)

mod data_support;

use std::path::Path;

use mcpr_compiler::ir::Suite;
use mcpr_runtime::data;
use serde_json::json;

use data_support::*;

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
        &*set.source,
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
