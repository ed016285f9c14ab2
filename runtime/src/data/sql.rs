//! SQL sources: a `query` run against a SQLite file (`file`, opened read-only with
//! `query_only` on) or a PostgreSQL server (`connection`: a `postgresql://` URL, a
//! `key=value` connection string, or an object of `host`, `port`, `user`, `password`,
//! `dbname`), inside a read-only transaction. Each result row becomes a row object;
//! integers, reals, booleans and JSON keep their types, everything else becomes text.

use crate::codes::RunCode;
use std::path::Path;
use std::time::Duration;

use mcpr_compiler::ir::DataSource;
use serde_json::{Map, Value};

use super::coerce::js_number;
use super::error::DataError;
use super::{DataOptions, Row};

/// Most rows a query may return (`MCP-DATA-028`).
pub const MAX_ROWS: usize = 1_000_000;
/// Time a PostgreSQL connection and query may take unless `timeoutMs` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The query of a `sql` source (`MCP-DATA-012` when there is none, or only a module).
pub fn query_of(ds: &DataSource) -> Result<String, DataError> {
    match ds.query.as_ref().filter(|q| !q.trim().is_empty()) {
        Some(q) => Ok(q.clone()),
        None => Err(DataError::new(
            RunCode::SqlSource,
            if ds.module.is_some() {
                "This SQL source names a JavaScript `module`; mcpr runs SQL itself and needs a `query`."
            } else {
                "A SQL source needs a `query`."
            },
        )
        .help("give `query:` and either `file:` (SQLite) or `connection:` (PostgreSQL)")),
    }
}

fn too_many(shown: &str) -> DataError {
    DataError::new(
        RunCode::TooManyRecords,
        format!("The query returns more than {MAX_ROWS} rows."),
    )
    .in_file(shown)
    .help("narrow the query with WHERE or LIMIT")
}

/// Runs `query` on a SQLite database file; a query running longer than `timeout` is
/// interrupted (`MCP-DATA-035`).
pub fn sqlite(
    path: &Path,
    shown: &str,
    query: &str,
    timeout: Duration,
) -> Result<Vec<Row>, DataError> {
    use rusqlite::types::ValueRef;
    if !path.is_file() {
        return Err(DataError::new(
            RunCode::DataUnreadable,
            "Cannot read the database: there is no such file.",
        )
        .in_file(shown)
        .help("check the path; it is relative to the suite file's folder"));
    }
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let failed = |e: rusqlite::Error| {
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) {
            return DataError::new(
                RunCode::DataUnreachable,
                format!(
                    "The query did not finish within {} ms.",
                    timeout.as_millis()
                ),
            )
            .in_file(shown)
            .help("raise `timeoutMs`, or make the query cheaper");
        }
        DataError::new(RunCode::QueryFailed, format!("The query failed: {e}."))
            .in_file(shown)
            .help("check the SQL and the table and column names")
    };
    let conn = rusqlite::Connection::open_with_flags(path, flags).map_err(|e| {
        DataError::new(
            RunCode::DataUnreadable,
            format!("Cannot open the database: {e}."),
        )
        .in_file(shown)
    })?;
    conn.pragma_update(None, "query_only", true)
        .map_err(failed)?;
    let mut stmt = conn.prepare(query).map_err(failed)?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let mut result = stmt.query([]).map_err(failed)?;
    let mut rows = Vec::new();
    while let Some(r) = result.next().map_err(failed)? {
        if rows.len() >= MAX_ROWS {
            return Err(too_many(shown));
        }
        let mut row = Map::new();
        for (i, name) in names.iter().enumerate() {
            let v = match r.get_ref(i).map_err(failed)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::from(n),
                ValueRef::Real(x) => js_number(x).unwrap_or(Value::Null),
                ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::String(b.iter().map(|x| format!("{x:02x}")).collect()),
            };
            row.insert(name.clone(), v);
        }
        rows.push(row);
    }
    Ok(rows)
}

fn pg_config(conn: &Value) -> Result<tokio_postgres::Config, DataError> {
    let bad = |why: String| {
        DataError::new(RunCode::SqlSource, format!("The PostgreSQL connection is not usable: {why}."))
            .help("use `postgresql://user@host:5432/db`, `host=… port=… user=… dbname=…`, or an object with those keys")
    };
    match conn {
        Value::String(s) => s
            .parse()
            .map_err(|e: tokio_postgres::Error| bad(e.to_string())),
        Value::Object(m) => {
            let mut c = tokio_postgres::Config::new();
            for (k, v) in m {
                let text = super::coerce::as_text(v);
                match k.as_str() {
                    "host" => {
                        c.host(&text);
                    }
                    "port" => {
                        c.port(
                            text.parse()
                                .map_err(|_| bad(format!("port {text:?} is not a number")))?,
                        );
                    }
                    "user" => {
                        c.user(&text);
                    }
                    "password" => {
                        c.password(&text);
                    }
                    "dbname" | "database" => {
                        c.dbname(&text);
                    }
                    other => return Err(bad(format!("unknown setting `{other}`"))),
                }
            }
            Ok(c)
        }
        other => Err(bad(format!("it is {}", super::describe(other)))),
    }
}

/// Runs `query` on a PostgreSQL server.
pub async fn postgres(
    ds: &DataSource,
    query: &str,
    opts: &DataOptions,
) -> Result<(Vec<Row>, String), DataError> {
    use tokio_postgres::config::Host;
    let conn = ds.connection.as_ref().expect("a connection");
    let mut config = pg_config(conn)?;
    let hosts = config.get_hosts().to_vec();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("").to_string();
    let host_text = match hosts.as_slice() {
        [Host::Tcp(h)] => h.clone(),
        [Host::Unix(p)] => p.display().to_string(),
        [] => "localhost".to_string(),
        _ => {
            return Err(DataError::new(
                RunCode::SqlSource,
                "The PostgreSQL connection names several hosts; mcpr connects to one.",
            ));
        }
    };
    let shown = format!("postgresql://{host_text}:{port}/{db}");
    match hosts.first() {
        Some(Host::Unix(_)) => {}
        _ => {
            if hosts.is_empty() {
                config.host("localhost");
            }
            let addrs = super::net::resolve(&host_text, port, opts)
                .await
                .map_err(|e| e.in_file(&shown))?;
            config.hostaddr(addrs[0].ip());
        }
    }
    let timeout = ds.timeout_ms.map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    config.connect_timeout(timeout);
    let work = async {
        let (client, connection) = config.connect(tokio_postgres::NoTls).await.map_err(|e| {
            DataError::new(
                RunCode::DataUnreachable,
                format!("Cannot connect to the database: {}.", pg_message(&e)),
            )
            .in_file(&shown)
        })?;
        let driver = tokio::spawn(connection);
        let result = run_pg(&client, query, &shown).await;
        drop(client);
        let _ = driver.await;
        result
    };
    let rows = tokio::time::timeout(timeout, work).await.map_err(|_| {
        DataError::new(
            RunCode::DataUnreachable,
            format!(
                "The database did not answer within {} ms.",
                timeout.as_millis()
            ),
        )
        .in_file(&shown)
        .help("raise `timeoutMs`, or make the query cheaper")
    })??;
    Ok((rows, shown))
}

fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => {
            let mut s = e.to_string();
            if let Some(src) = std::error::Error::source(e) {
                s = format!("{s}: {src}");
            }
            s
        }
    }
}

async fn run_pg(
    client: &tokio_postgres::Client,
    query: &str,
    shown: &str,
) -> Result<Vec<Row>, DataError> {
    use tokio_postgres::SimpleQueryMessage;
    use tokio_postgres::types::Type;
    let failed = |e: tokio_postgres::Error| {
        DataError::new(
            RunCode::QueryFailed,
            format!("The query failed: {}.", pg_message(&e)),
        )
        .in_file(shown)
        .help("check the SQL and the table and column names")
    };
    client
        .batch_execute("BEGIN TRANSACTION READ ONLY")
        .await
        .map_err(failed)?;
    // The statement's column types; the values come as text from the simple protocol,
    // which every type supports.
    let stmt = client.prepare(query).await.map_err(failed)?;
    let types: Vec<Type> = stmt.columns().iter().map(|c| c.type_().clone()).collect();
    let messages = client.simple_query(query).await.map_err(failed)?;
    let _ = client.batch_execute("ROLLBACK").await;
    let mut rows = Vec::new();
    for m in messages {
        let SimpleQueryMessage::Row(r) = m else {
            continue;
        };
        if rows.len() >= MAX_ROWS {
            return Err(too_many(shown));
        }
        let mut row = Map::new();
        for (i, col) in r.columns().iter().enumerate() {
            let v = match r.get(i) {
                None => Value::Null,
                Some(text) => pg_value(text, types.get(i)),
            };
            row.insert(col.name().to_string(), v);
        }
        rows.push(row);
    }
    Ok(rows)
}

fn pg_value(text: &str, ty: Option<&tokio_postgres::types::Type>) -> Value {
    use tokio_postgres::types::Type;
    let s = || Value::String(text.to_string());
    let Some(ty) = ty else { return s() };
    match *ty {
        Type::BOOL => Value::Bool(text == "t"),
        Type::INT2 | Type::INT4 | Type::INT8 | Type::OID => {
            text.parse::<i64>().map(Value::from).unwrap_or_else(|_| s())
        }
        Type::FLOAT4 | Type::FLOAT8 | Type::NUMERIC => text
            .parse::<f64>()
            .ok()
            .and_then(js_number)
            .unwrap_or_else(s),
        Type::JSON | Type::JSONB => serde_json::from_str(text).unwrap_or_else(|_| s()),
        _ => s(),
    }
}
