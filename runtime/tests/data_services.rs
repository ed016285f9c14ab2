//! Data sources served by others: a real SQLite database, a real PostgreSQL server, a
//! loopback HTTP server (REST and Google Sheets) and real plugin commands, with their limits
//! and safety checks.

mod data_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcpr_compiler::ir::Suite;
use mcpr_runtime::data::{self, DataOptions};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use data_support::*;

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
        &*set.source,
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
    assert_eq!(&*set.source, format!("{base}/rows"));

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
    assert_eq!(&*set.source, "plugin sh");
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
