//! Data sources: the rows a data-driven test runs for (mcp-test-language-1.md §3.9, §4.9).
//!
//! One module per provider — [`inline`](self) rows, [`csv`], [`file`] (JSON and YAML),
//! [`excel`], [`rest`] (REST and Google Sheets), [`sql`] (SQLite files and PostgreSQL),
//! [`plugin`] (an external command) — feeding one [`pipeline`]: typed coercion, join,
//! derive, where, sample and the row limit, always in that order. Sources load at run time,
//! before the first test starts; remote sources, network databases and plugins need the
//! matching safety flag. This module knows no MCP server.

mod absent;
pub mod coerce;
pub mod csv;
pub mod date;
pub mod error;
#[cfg(feature = "excel")]
pub mod excel;
#[cfg(not(feature = "excel"))]
pub use absent::excel;
pub mod file;
pub mod fingerprint;
pub mod locate;
pub mod net;
pub mod pipeline;
pub mod plugin;
pub mod rest;
pub mod sample;
#[cfg(feature = "sql")]
pub mod sql;
#[cfg(not(feature = "sql"))]
pub use absent::sql;

use crate::codes::RunCode;
use crate::environment::Environment;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pipeline::Problems;
use std::sync::{Arc, Mutex};

use mcpr_compiler::ir::{DataSource, ForEach, Provider, Suite};
use serde_json::{Map, Value};

pub use error::{DataError, DataErrors, DataLocation, Omitted, Snippet, SourceRef};
pub use locate::{How, Locator};
use pipeline::{JoinIndex, Spec};

/// One row: column name → value, in column order.
pub type Row = Map<String, Value>;

/// Where a row came from, for messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// 1-based data row.
    pub row: u64,
    /// 1-based line of the row in a text file.
    pub line: Option<u64>,
    /// Byte offset of the row in a text file.
    pub byte: Option<u64>,
}

/// A row as a provider hands it over.
#[derive(Debug, Clone)]
pub struct Item {
    /// The values.
    pub row: Row,
    /// Where it came from.
    pub origin: Origin,
}

/// A provider's rows, read one at a time.
pub type Rows<'a> = Box<dyn Iterator<Item = Result<Item, DataError>> + Send + 'a>;

/// What a run may load and how much.
#[derive(Debug, Clone)]
pub struct DataOptions {
    /// Folder of the suite file; relative data paths resolve against it.
    pub base_dir: PathBuf,
    /// Allow `rest` and `google-sheets` sources and network database connections.
    pub allow_remote_data: bool,
    /// Allow `plugin` sources (external commands).
    pub allow_custom_code: bool,
    /// Allow loopback, private, link-local and other non-public addresses.
    pub allow_private_network: bool,
    /// Most rows one source may give after its pipeline (`--max-rows`).
    pub max_rows: usize,
    /// `mcpr check --data`: load local files only; skip remote sources, network databases and
    /// plugins instead of refusing them.
    pub local_only: bool,
    /// The environment the command was started in: `${env.…}` in a source's settings, and
    /// the `PATH` a plugin without the `environment` permission gets.
    pub env: Environment,
}

/// Default of `--max-rows`.
pub const DEFAULT_MAX_ROWS: usize = 1000;

impl Default for DataOptions {
    fn default() -> Self {
        DataOptions {
            base_dir: PathBuf::from("."),
            allow_remote_data: false,
            allow_custom_code: false,
            allow_private_network: false,
            max_rows: DEFAULT_MAX_ROWS,
            local_only: false,
            env: Environment::default(),
        }
    }
}

impl DataOptions {
    /// The file a data path names, and how to show it (relative to the working folder when
    /// the suite's folder is).
    pub fn resolve(&self, file: &str) -> (PathBuf, String) {
        let path = self.base_dir.join(file);
        let shown = path
            .strip_prefix(".")
            .unwrap_or(&path)
            .display()
            .to_string();
        (path, shown)
    }
}

/// The rows of one source after its pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSet {
    /// What the rows were read from: the file, the URL (without its query) or the provider
    /// (shared with the results of the rows).
    pub source: Arc<str>,
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// `sha256:` fingerprint of the rows' canonical JSON (shared like `source`).
    pub fingerprint: Arc<str>,
}

impl RowSet {
    fn new(source: String, rows: Vec<Row>) -> RowSet {
        let fingerprint = fingerprint::fingerprint(rows.iter());
        RowSet {
            source: source.into(),
            rows,
            fingerprint: fingerprint.into(),
        }
    }
}

/// The rows of every data-driven test of a suite, by the test's index in `suite.tests`.
#[derive(Debug, Clone, Default)]
pub struct SuiteRows {
    /// `None` for tests without iteration.
    pub by_test: Vec<Option<Arc<RowSet>>>,
}

/// Loaded rows shared by sources marked `cache`, keyed by their load settings.
type Cache = Arc<Mutex<HashMap<String, Arc<(Vec<Item>, Locator)>>>>;

/// The state of one run's loading.
#[derive(Clone)]
struct Ctx {
    opts: Arc<DataOptions>,
    cache: Cache,
}

/// Loads the rows of every data-driven test of `suite` (each source once per test that
/// uses it; sources with `cache` once per run). Declared sources no test uses are not loaded
/// (the compiler warns about them, MCPLANG906). Every source is read to its end and every
/// problem is reported, sorted (at most [`error::MAX_PROBLEMS_PER_SOURCE`] per source); a
/// source that failed is not tried again for the next test that uses it.
pub async fn load_suite(suite: &Suite, opts: &DataOptions) -> Result<SuiteRows, DataErrors> {
    let ctx = Ctx {
        opts: Arc::new(opts.clone()),
        cache: Cache::default(),
    };
    let mut by_test = Vec::with_capacity(suite.tests.len());
    let mut problems = DataErrors::default();
    let mut failed: Vec<SourceRef> = Vec::new();
    for test in &suite.tests {
        let Some(each) = &test.for_each else {
            by_test.push(None);
            continue;
        };
        let set = match source_of(suite, &test.name, each) {
            Err(e) => {
                problems.extend(e.into());
                None
            }
            Ok((label, _)) if failed.contains(&label) => None,
            Ok((label, ds)) => match load_named(&ctx, &label, ds).await {
                Ok(set) => Some(Arc::new(set)),
                Err(e) => {
                    problems.extend(e);
                    failed.push(label);
                    None
                }
            },
        };
        by_test.push(set);
    }
    if problems.is_empty() {
        Ok(SuiteRows { by_test })
    } else {
        problems.sort();
        Err(problems)
    }
}

/// `mcpr check --data`: loads the sources the tests use, the way `mcpr run` does but local
/// files only (never the network, never plugins), and returns every problem, sorted.
pub async fn check_suite(suite: &Suite, opts: &DataOptions) -> DataErrors {
    let mut opts = opts.clone();
    opts.local_only = true;
    load_suite(suite, &opts).await.err().unwrap_or_default()
}

fn unknown_source(test: &str, name: &str) -> DataError {
    DataError::new(
        RunCode::UnknownDataSource,
        format!("Test \"{test}\" takes its rows from data source \"{name}\", which the suite does not declare."),
    )
    .help(format!("declare it with `Data source: \"{name}\"`, or fix the name"))
}

/// The data source a test iterates over, and how to name it in messages.
fn source_of(
    suite: &Suite,
    test: &str,
    each: &ForEach,
) -> Result<(SourceRef, DataSource), DataError> {
    Ok(match each {
        ForEach::Rows(r) => (
            SourceRef::OfTest(test.to_string()),
            DataSource {
                provider: Some(Provider::Inline),
                rows: Some(r.rows.clone()),
                ..DataSource::default()
            },
        ),
        ForEach::Source(s) => {
            let ds = suite
                .data_sources
                .as_ref()
                .and_then(|m| m.get(&s.source))
                .ok_or_else(|| unknown_source(test, &s.source))?;
            (SourceRef::Named(s.source.clone()), ds.clone())
        }
        ForEach::File(f) => (
            SourceRef::OfTest(test.to_string()),
            DataSource {
                file: Some(f.file.clone()),
                sheet: f.sheet.clone(),
                ..DataSource::default()
            },
        ),
    })
}

async fn load_named(ctx: &Ctx, label: &SourceRef, ds: DataSource) -> Result<RowSet, DataErrors> {
    let max = Some(ctx.opts.max_rows);
    load(ctx, ds, max).await.map_err(|e| e.source_named(label))
}

/// Replaces `${env.NAME}` in every text of a source's settings from `env` (missing
/// variables become "").
pub fn substitute_env(ds: &DataSource, env: &Environment) -> DataSource {
    fn walk(v: &mut Value, env: &Environment) {
        match v {
            Value::String(s) if s.contains("${env.") => *s = env_text(s, env),
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, env)),
            Value::Object(m) => m.values_mut().for_each(|i| walk(i, env)),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(ds).unwrap_or(Value::Null);
    walk(&mut v, env);
    serde_json::from_value(v).unwrap_or_else(|_| ds.clone())
}

fn env_text(s: &str, env: &Environment) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${env.") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 6..];
        match after.find('}') {
            Some(j) => {
                out.push_str(env.get(&after[..j]).unwrap_or_default());
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The provider of a source: explicit, or from the file's extension or the URL.
pub fn provider_of(ds: &DataSource) -> Result<Provider, DataError> {
    if let Some(p) = ds.provider {
        return Ok(p);
    }
    if let Some(file) = &ds.file {
        let ext = Path::new(file)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        return match ext.as_str() {
            "csv" => Ok(Provider::Csv),
            "json" => Ok(Provider::Json),
            "yaml" | "yml" => Ok(Provider::Yaml),
            "xlsx" | "xlsm" | "xls" => Ok(Provider::Excel),
            "db" | "sqlite" | "sqlite3" if ds.query.is_some() => Ok(Provider::Sql),
            _ => Err(DataError::new(
                RunCode::DataProvider,
                format!("Cannot tell how to read {file:?} from its extension."),
            )
            .help("use a .csv, .json, .yaml, .yml or .xlsx file, or set `provider`")),
        };
    }
    if let Some(url) = &ds.url
        && url.to_ascii_lowercase().starts_with("http")
    {
        return Ok(Provider::Rest);
    }
    if ds.rows.is_some() {
        return Ok(Provider::Inline);
    }
    Err(DataError::new(
        RunCode::DataProvider,
        "The data source names no provider, file, URL or rows.",
    )
    .help("add `From CSV \"file.csv\"` (or `provider`, `file`, `url` or `rows`)"))
}

/// Settings that decide what is loaded (the cache key): everything but the transforms.
fn load_key(ds: &DataSource, opts: &DataOptions) -> String {
    let mut bare = ds.clone();
    bare.columns = None;
    bare.join = None;
    bare.derive = None;
    bare.filter = None;
    bare.sample = None;
    bare.cache = None;
    bare.on = None;
    bare.kind = None;
    bare.prefix = None;
    format!(
        "{}|{}",
        opts.base_dir.display(),
        serde_json::to_string(&bare).unwrap_or_default()
    )
}

fn local(p: Provider, ds: &DataSource) -> bool {
    match p {
        Provider::Inline | Provider::Csv | Provider::Json | Provider::Yaml | Provider::Excel => {
            true
        }
        Provider::Sql => ds.connection.is_none(),
        Provider::Rest | Provider::GoogleSheets | Provider::Plugin => false,
    }
}

/// Loads one source through its whole pipeline.
fn load(
    ctx: &Ctx,
    ds: DataSource,
    max_rows: Option<usize>,
) -> crate::BoxFuture<'_, Result<RowSet, DataErrors>> {
    Box::pin(async move {
        let ds = substitute_env(&ds, &ctx.opts.env);
        let spec = Spec::new(&ds)?;
        let provider = provider_of(&ds)?;
        let join = match &ds.join {
            Some(j) => Some(join_index(ctx, j).await?),
            None => None,
        };
        let opts = Arc::clone(&ctx.opts);
        if opts.local_only && !local(provider, &ds) {
            return Ok(RowSet::new(String::new(), Vec::new()));
        }
        let cached = ds.cache == Some(true);
        let key = load_key(&ds, &opts);
        if cached {
            let hit = ctx.cache.lock().ok().and_then(|c| c.get(&key).cloned());
            if let Some(hit) = hit {
                let (items, locator) = (&hit.0, &hit.1);
                let rows = pipeline::run(
                    &spec,
                    Box::new(items.iter().cloned().map(Ok)),
                    locator,
                    join.as_ref(),
                    max_rows,
                )?;
                return Ok(RowSet::new(locator.file.clone(), rows));
            }
        }
        if local(provider, &ds) {
            let cache = Arc::clone(&ctx.cache);
            let task = tokio::task::spawn_blocking(move || -> Result<RowSet, DataErrors> {
                let (rows, locator) = open_local(provider, &ds, &opts)?;
                if cached {
                    let read: Vec<Result<Item, DataError>> = rows.collect();
                    if read.iter().any(Result::is_err) {
                        // Not kept: the pipeline reports every problem of the rows.
                        let out = pipeline::run(
                            &spec,
                            Box::new(read.into_iter()),
                            &locator,
                            join.as_ref(),
                            max_rows,
                        )?;
                        return Ok(RowSet::new(locator.file.clone(), out));
                    }
                    let items: Vec<Item> = read.into_iter().flatten().collect();
                    let shared = Arc::new((items, locator));
                    if let Ok(mut c) = cache.lock() {
                        c.insert(key, Arc::clone(&shared));
                    }
                    let out = pipeline::run(
                        &spec,
                        Box::new(shared.0.iter().cloned().map(Ok)),
                        &shared.1,
                        join.as_ref(),
                        max_rows,
                    )?;
                    return Ok(RowSet::new(shared.1.file.clone(), out));
                }
                let out = pipeline::run(&spec, rows, &locator, join.as_ref(), max_rows)?;
                Ok(RowSet::new(locator.file.clone(), out))
            });
            return task.await.map_err(|e| {
                DataErrors::from(DataError::new(
                    RunCode::DataUnreadable,
                    format!("Loading the data failed: {e}"),
                ))
            })?;
        }
        let (items, locator) = fetch_remote(provider, &ds, &opts).await?;
        let shared = Arc::new((items, locator));
        if cached && let Ok(mut c) = ctx.cache.lock() {
            c.insert(key, Arc::clone(&shared));
        }
        let out = pipeline::run(
            &spec,
            Box::new(shared.0.iter().cloned().map(Ok)),
            &shared.1,
            join.as_ref(),
            max_rows,
        )?;
        Ok(RowSet::new(shared.1.file.clone(), out))
    })
}

async fn join_index(ctx: &Ctx, j: &DataSource) -> Result<JoinIndex, DataErrors> {
    let on = j.on.clone().filter(|o| !o.is_empty()).ok_or_else(|| {
        DataError::new(
            RunCode::JoinWithoutOn,
            "The join names no column to match rows on.",
        )
        .help("add `on: COLUMN` to the join")
    })?;
    let kind = j.kind.unwrap_or(mcpr_compiler::ir::JoinKind::Inner);
    let right = load(ctx, j.clone(), None).await?;
    Ok(JoinIndex::new(
        on,
        kind,
        j.prefix.clone().unwrap_or_default(),
        right.rows,
    ))
}

fn numbered(rows: Vec<Row>) -> Vec<Item> {
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| Item {
            row,
            origin: Origin {
                row: i as u64 + 1,
                ..Origin::default()
            },
        })
        .collect()
}

/// Opens a local provider: its rows (streamed for CSV) and how to locate them.
fn open_local(
    provider: Provider,
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(Rows<'static>, Locator), DataErrors> {
    let file = |what: &str| {
        ds.file.clone().ok_or_else(|| {
            DataError::new(
                RunCode::DataProvider,
                format!("A {what} source needs a `file`."),
            )
            .help("name the file, e.g. `From CSV \"cases.csv\"`")
        })
    };
    match provider {
        Provider::Inline => {
            let rows = ds.rows.clone().unwrap_or_default();
            Ok((
                Box::new(numbered(rows).into_iter().map(Ok)),
                Locator::plain("inline"),
            ))
        }
        Provider::Csv => {
            let (path, shown) = opts.resolve(&file("CSV")?);
            Ok(csv::open(&path, &shown)?)
        }
        Provider::Json | Provider::Yaml => {
            let (path, shown) = opts.resolve(&file(if provider == Provider::Json {
                "JSON"
            } else {
                "YAML"
            })?);
            let (items, locator) = file::load(
                &path,
                &shown,
                provider == Provider::Yaml,
                ds.path.as_deref(),
            )?;
            Ok((Box::new(items.into_iter()), locator))
        }
        Provider::Excel => {
            let (path, shown) = opts.resolve(&file("Excel")?);
            let (items, locator) = excel::load(&path, &shown, ds.sheet.as_deref())?;
            Ok((Box::new(items.into_iter().map(Ok)), locator))
        }
        Provider::Sql => {
            let query = sql::query_of(ds)?;
            let Some(db) = &ds.file else {
                return Err(DataError::new(
                    RunCode::SqlSource,
                    "A SQL source needs a database: `file` (SQLite) or `connection` (PostgreSQL).",
                )
                .help("add `file: shop.db` or `connection: postgresql://user@host/db`")
                .into());
            };
            let (path, shown) = opts.resolve(db);
            let timeout = ds
                .timeout_ms
                .map_or(sql::DEFAULT_TIMEOUT, std::time::Duration::from_millis);
            let rows = sql::sqlite(&path, &shown, &query, timeout)?;
            Ok((
                Box::new(numbered(rows).into_iter().map(Ok)),
                Locator::plain(&shown),
            ))
        }
        Provider::Rest | Provider::GoogleSheets | Provider::Plugin => {
            unreachable!("remote providers are fetched asynchronously")
        }
    }
}

/// Fetches a remote or custom provider's rows (REST, Google Sheets, PostgreSQL, plugins),
/// after its safety flag is checked.
async fn fetch_remote(
    provider: Provider,
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(Vec<Item>, Locator), DataErrors> {
    match provider {
        Provider::Rest | Provider::GoogleSheets => {
            if !opts.allow_remote_data {
                return Err(DataError::new(
                    RunCode::RemoteDataOff,
                    "Remote data sources are turned off.",
                )
                .help("run with --allow-remote-data to let this suite fetch rows over the network")
                .into());
            }
            let (rows, shown) = if provider == Provider::Rest {
                rest::load_rest(ds, opts).await?
            } else {
                rest::load_google_sheets(ds, opts).await?
            };
            Ok((numbered(rows), Locator::plain(&shown)))
        }
        Provider::Sql => {
            if !opts.allow_remote_data {
                return Err(DataError::new(
                    RunCode::RemoteDataOff,
                    "Database connections over the network are turned off.",
                )
                .help("run with --allow-remote-data to let this suite query the database")
                .into());
            }
            let query = sql::query_of(ds)?;
            let (rows, shown) = sql::postgres(ds, &query, opts).await?;
            Ok((numbered(rows), Locator::plain(&shown)))
        }
        Provider::Plugin => {
            if !opts.allow_custom_code {
                return Err(DataError::new(
                    RunCode::PluginsOff,
                    "Plugin data sources run a program, which is turned off.",
                )
                .help("run with --allow-custom-code to let this suite run the plugin")
                .into());
            }
            let (rows, shown) = plugin::run(ds, opts).await?;
            Ok((numbered(rows), Locator::plain(&shown)))
        }
        _ => unreachable!("local providers are opened synchronously"),
    }
}

/// Checks that a value is an array (`MCP-DATA-011`) and returns its items as rows, numbered
/// from 1; an item that is not an object is a problem in its place, located by
/// `locate_item` (0-based index) when it can be, so the other rows are still checked.
pub fn items_of(
    value: Value,
    shown: &str,
    what: &str,
    locate_item: &dyn Fn(usize) -> Option<DataLocation>,
) -> Result<Vec<Result<Item, DataError>>, DataError> {
    let Value::Array(items) = value else {
        return Err(DataError::new(
            RunCode::NotRows,
            format!("{what} is {}, not a list of rows.", describe(&value)),
        )
        .in_file(shown)
        .help("point `path` at an array of objects, e.g. `path: data.items`"));
    };
    let lower = what.to_lowercase();
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(row) => Ok(Item {
                row,
                origin: Origin {
                    row: i as u64 + 1,
                    ..Origin::default()
                },
            }),
            other => {
                let e = DataError::new(
                    RunCode::NotRows,
                    format!(
                        "Item {} of {lower} is {}; every row must be an object of column values.",
                        i + 1,
                        describe(&other)
                    ),
                )
                .help("write every row as an object of column values, e.g. {\"id\": 1}");
                Err(match locate_item(i) {
                    Some(at) => e.at(at),
                    None => e.in_file(shown),
                })
            }
        })
        .collect())
}

/// Checks that a value is an array of objects (`MCP-DATA-011`) and returns the rows; every
/// item that is not an object is a problem.
pub fn rows_of(value: Value, shown: &str, what: &str) -> Result<Vec<Row>, DataErrors> {
    let mut rows = Vec::new();
    let mut problems = Problems::default();
    for item in items_of(value, shown, what, &|_| None)? {
        match item {
            Ok(item) => rows.push(item.row),
            Err(e) => problems.push(e),
        }
    }
    if problems.any() {
        return Err(problems.into_errors(shown));
    }
    Ok(rows)
}

/// "a string", "an object", … for messages.
pub use crate::protocol::jsonrpc::described as describe;

/// Follows a dot path (`data.items`, `results.0.rows`) into a document.
pub fn follow_path(mut v: Value, path: Option<&str>, shown: &str) -> Result<Value, DataError> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Ok(v);
    };
    let mut walked = Vec::new();
    for part in path.split('.') {
        walked.push(part);
        let next = match &mut v {
            Value::Object(m) => m.remove(part),
            Value::Array(a) => part
                .parse::<usize>()
                .ok()
                .filter(|i| *i < a.len())
                .map(|i| a.swap_remove(i)),
            _ => None,
        };
        v = next.ok_or_else(|| {
            DataError::new(
                RunCode::NotRows,
                format!(
                    "The document has nothing at `{}` (path `{path}`).",
                    walked.join(".")
                ),
            )
            .in_file(shown)
            .help("check the `path` against the document's structure")
        })?;
    }
    Ok(v)
}
