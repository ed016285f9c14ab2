//! Data sources and row iteration (mcpr additions; loaded at run time).

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::Permission;
use super::map::OrderedMap;

/// A named data source: where rows come from and the pipeline that shapes them.
///
/// The pipeline always runs in the same order: load, coerce `columns`, `join`, `derive`,
/// filter with `where`, `sample`. Fields that only some providers read are optional. The
/// same type describes the nested source of a `join`; `on`, `kind` and `prefix` are meaningful
/// only there (the schema rejects them elsewhere).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataSource {
    /// Loader to use; when absent it is inferred from `file` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// Data file, relative to the suite file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Address of a remote JSON document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Worksheet of an Excel workbook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// Dot path to the row array inside a JSON/YAML document or REST response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// HTTP headers for remote providers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<OrderedMap<String>>,
    /// Rows given in place (`inline` provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<Map<String, Value>>>,
    /// Typing and validation of columns, applied right after loading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<OrderedMap<Column>>,
    /// A second source whose rows are merged in by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<Box<DataSource>>,
    /// Column of a join that both sides are matched on (join only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Whether unmatched base rows are dropped or kept (join only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<JoinKind>,
    /// Prefix added to the joined columns' names (join only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// New columns computed from templates, in order: column name → template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derive: Option<OrderedMap<String>>,
    /// Row filter: column → condition, all of which must hold.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<OrderedMap<WhereCondition>>,
    /// Which of the remaining rows to keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<Sample>,
    /// Reuse loaded rows within one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<bool>,
    /// Google Sheets document id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spreadsheet_id: Option<String>,
    /// Google Sheets range, e.g. `Sheet1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// Google API key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// OAuth access token for Google Sheets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// Module implementing a `sql` or `plugin` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Query text for the `sql` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Connection string or settings for the `sql` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<Value>,
    /// Program run by a `plugin` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Arguments of `command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Time limit of a custom provider in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Capabilities granted to a custom provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<Permission>>,
    /// Load the custom module directly instead of in an isolated worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsafe_legacy: Option<bool>,
}

/// Row loaders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// Rows written in the suite.
    Inline,
    /// A CSV file.
    Csv,
    /// A JSON file.
    Json,
    /// A YAML file.
    Yaml,
    /// An Excel workbook.
    Excel,
    /// A JSON document fetched over HTTP(S).
    Rest,
    /// A Google Sheets range.
    GoogleSheets,
    /// A SQL query run by a custom module.
    Sql,
    /// A custom module.
    Plugin,
}
every_variant!(Provider: Inline, Csv, Json, Yaml, Excel, Rest, GoogleSheets, Sql, Plugin);

/// Type and validation of one column.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Column {
    /// Type the cell values are converted to.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<ColumnType>,
    /// Rows with an empty value are an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The allowed values, compared after conversion.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<Value>>,
}

/// Column value types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    /// Text (objects become their JSON text).
    String,
    /// A finite number.
    Number,
    /// `true/yes/1` or `false/no/0`.
    Boolean,
    /// A date, normalised to ISO 8601 UTC.
    Date,
    /// JSON text decoded into a value.
    Json,
}
every_variant!(ColumnType: String, Number, Boolean, Date, Json);

/// How a join treats base rows without a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JoinKind {
    /// Drop them.
    Inner,
    /// Keep them without the joined columns.
    Left,
}
every_variant!(JoinKind: Inner, Left);

/// A condition on one column in a `where` filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum WhereCondition {
    /// An object of operators, all of which must hold.
    Operators(WhereOperators),
    /// The value must equal one of the list's items.
    OneOf(Vec<Value>),
    /// The value must equal this scalar.
    Equals(Value),
}

impl<'de> Deserialize<'de> for WhereCondition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Array(items) => Ok(Self::OneOf(items)),
            object @ Value::Object(_) => WhereOperators::deserialize(object)
                .map(Self::Operators)
                .map_err(D::Error::custom),
            scalar => Ok(Self::Equals(scalar)),
        }
    }
}

/// The operator form of a `where` condition.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WhereOperators {
    /// The value must equal this.
    #[serde(
        default,
        deserialize_with = "super::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub equals: Option<Value>,
    /// The value must not equal this.
    #[serde(
        default,
        deserialize_with = "super::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_equals: Option<Value>,
    /// The value must equal one of these.
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// The (string) value must match this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// The (numeric) value must be greater than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub greater_than: Option<Number>,
    /// The (numeric) value must be less than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub less_than: Option<Number>,
}

/// Which rows a `sample` keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Sample {
    /// The first N rows (a bare number).
    Count(u64),
    /// `{first: N}`.
    First(SampleFirst),
    /// `{last: N}`.
    Last(SampleLast),
    /// `{every: N}`: rows at positions 0, N, 2N, …
    Every(SampleEvery),
    /// `{count: N, seed: S}`: N rows picked by a seeded shuffle, in source order.
    Random(SampleRandom),
}

/// The first N rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleFirst {
    /// How many rows.
    pub first: u64,
}

/// The last N rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleLast {
    /// How many rows.
    pub last: u64,
}

/// Every N-th row, starting with the first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleEvery {
    /// Step between kept rows.
    pub every: u64,
}

/// A reproducible random choice of rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleRandom {
    /// How many rows.
    pub count: u64,
    /// Seed of the shuffle (42 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// What a data-driven test iterates over: one test instance per row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ForEach {
    /// A table written in the test.
    Rows(ForEachRows),
    /// A source declared under `dataSources`.
    Source(ForEachSource),
    /// A data file named directly.
    File(ForEachFile),
}

/// Rows written in place (`For each row:` with a table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForEachRows {
    /// The rows, each a column → value object in column order.
    pub rows: Vec<Map<String, Value>>,
}

/// Rows from a named data source (`For each row from "name"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForEachSource {
    /// Name of an entry of the suite's `dataSources`.
    pub source: String,
}

/// Rows from a file (`For each row in "file" [from sheet "S"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForEachFile {
    /// Data file, relative to the suite file; the provider follows from its extension.
    pub file: String,
    /// Worksheet of an Excel workbook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
}
