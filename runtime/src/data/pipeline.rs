//! The row pipeline, in its fixed order: typed coercion (`columns`) → `join` → `derive` →
//! `where` → `sample` → row limit (mcp-test-language-1.md §4.9).
//!
//! Rows stream through coercion, join, derive and filter one at a time, so a large file is
//! never held whole: only the rows that survive the filter are kept, a `first` sample stops
//! reading as soon as it has its rows, `last` keeps a window, `every` keeps every N-th row,
//! and without a sample rows beyond `--max-rows` are counted, not kept. Only a seeded
//! `count` sample needs every filtered row before it can choose.

use crate::codes::RunCode;
use std::collections::{HashMap, VecDeque};

use mcpr_compiler::ir::{Column, DataSource, JoinKind, OrderedMap, WhereCondition};
use mcpr_compiler::regexp::Pattern as Regex;
use serde_json::Value;

use super::coerce::{self, CellProblem, as_text, show_value, strict_equal, type_word};
use super::error::{DataError, DataErrors, DataLocation, MAX_PROBLEMS_PER_SOURCE, Omitted};
use super::sample::{self, Plan};
use super::{Item, Locator, Origin, Row, Rows};

/// One compiled `where` condition.
#[derive(Debug, Clone)]
enum Condition {
    Equals(Value),
    OneOf(Vec<Value>),
    Ops {
        equals: Option<Value>,
        not_equals: Option<Value>,
        one_of: Option<Vec<Value>>,
        matches: Option<Box<Regex>>,
        greater_than: Option<f64>,
        less_than: Option<f64>,
    },
}

impl Condition {
    /// JavaScript semantics: `===`, membership by `===`, regex only on strings, comparisons
    /// only on numbers. An absent column equals nothing.
    fn holds(&self, v: Option<&Value>) -> bool {
        let eq = |want: &Value| v.is_some_and(|v| strict_equal(v, want));
        match self {
            Condition::Equals(want) => eq(want),
            Condition::OneOf(items) => items.iter().any(eq),
            Condition::Ops {
                equals,
                not_equals,
                one_of,
                matches,
                greater_than,
                less_than,
            } => {
                let num = v.and_then(|v| match v {
                    Value::Number(n) => n.as_f64(),
                    _ => None,
                });
                equals.as_ref().is_none_or(eq)
                    && not_equals.as_ref().is_none_or(|w| !eq(w))
                    && one_of.as_ref().is_none_or(|items| items.iter().any(eq))
                    && matches
                        .as_ref()
                        .is_none_or(|re| v.and_then(Value::as_str).is_some_and(|s| re.is_match(s)))
                    && greater_than.is_none_or(|g| num.is_some_and(|x| x > g))
                    && less_than.is_none_or(|l| num.is_some_and(|x| x < l))
            }
        }
    }
}

/// Rows of a joined source, grouped by the text of their key.
#[derive(Debug, Clone)]
pub struct JoinIndex {
    on: String,
    kind: JoinKind,
    prefix: String,
    rows: HashMap<String, Vec<Row>>,
}

impl JoinIndex {
    /// Groups `rows` by the text of column `on`; rows without it can never match.
    pub fn new(on: String, kind: JoinKind, prefix: String, rows: Vec<Row>) -> JoinIndex {
        let mut by_key: HashMap<String, Vec<Row>> = HashMap::new();
        for r in rows {
            if let Some(k) = r.get(&on).filter(|v| !v.is_null()) {
                by_key.entry(as_text(k)).or_default().push(r);
            }
        }
        JoinIndex {
            on,
            kind,
            prefix,
            rows: by_key,
        }
    }

    /// The rows one base row becomes: one per matching joined row (base values win on a name
    /// collision, the key is not repeated), the base row alone for an unmatched `left` join,
    /// nothing for an unmatched `inner` join.
    fn apply(&self, base: Row) -> Vec<Row> {
        let matches = base
            .get(&self.on)
            .filter(|v| !v.is_null())
            .and_then(|k| self.rows.get(&as_text(k)));
        match matches {
            None => match self.kind {
                JoinKind::Left => vec![base],
                JoinKind::Inner => Vec::new(),
            },
            Some(found) => found
                .iter()
                .map(|other| {
                    let mut merged = base.clone();
                    for (k, v) in other {
                        if *k == self.on {
                            continue;
                        }
                        let name = format!("{}{k}", self.prefix);
                        if !merged.contains_key(&name) {
                            merged.insert(name, v.clone());
                        }
                    }
                    merged
                })
                .collect(),
        }
    }
}

/// A source's transform settings, checked once before any row is read.
#[derive(Debug, Clone)]
pub struct Spec {
    columns: Vec<(String, Column)>,
    derive: Vec<(String, String)>,
    conditions: Vec<(String, Condition)>,
    sample: Option<Plan>,
}

fn number(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

impl Spec {
    /// Compiles `columns`, `derive`, `where` and `sample` (`MCP-DATA-023` for a bad sample,
    /// `MCP-DATA-038` for a `matches` pattern that is not a regular expression).
    pub fn new(ds: &DataSource) -> Result<Spec, DataError> {
        let pairs = |m: &Option<OrderedMap<Column>>| -> Vec<(String, Column)> {
            m.iter()
                .flat_map(|m| m.iter())
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect()
        };
        let mut conditions = Vec::new();
        for (col, cond) in ds.filter.iter().flat_map(|m| m.iter()) {
            let c = match cond {
                WhereCondition::Equals(v) => Condition::Equals(v.clone()),
                WhereCondition::OneOf(items) => Condition::OneOf(items.clone()),
                WhereCondition::Operators(o) => Condition::Ops {
                    equals: o.equals.clone(),
                    not_equals: o.not_equals.clone(),
                    one_of: o.one_of.clone(),
                    matches: match &o.matches {
                        Some(p) => Some(Box::new(mcpr_compiler::regexp::compile(p).map_err(|e| {
                            DataError::new(
                                RunCode::BadPattern,
                                format!(
                                    "The condition on column \"{col}\" matches {p:?}, which is not a regular expression: {}",
                                    e.to_string().lines().last().unwrap_or_default().trim()
                                ),
                            )
                            .help("escape special characters with a backslash")
                        })?)),
                        None => None,
                    },
                    greater_than: o.greater_than.as_ref().map(number),
                    less_than: o.less_than.as_ref().map(number),
                },
            };
            conditions.push((col.to_string(), c));
        }
        Ok(Spec {
            columns: pairs(&ds.columns),
            derive: ds
                .derive
                .iter()
                .flat_map(|m| m.iter())
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            conditions,
            sample: ds.sample.as_ref().map(sample::plan).transpose()?,
        })
    }

    /// Converts the declared columns of a row; every cell that fails is a problem (the row is
    /// then dropped, and the load fails after every row is read).
    fn coerce(&self, item: &mut Item, locator: &Locator, problems: &mut Problems) -> bool {
        let mut ok = true;
        for (name, column) in &self.columns {
            let present = item.row.get(name);
            match coerce::apply(column, present) {
                Ok(Some(v)) => {
                    item.row.insert(name.clone(), v);
                }
                Ok(None) => {}
                Err(problem) => {
                    problems.push(cell_error(problem, name, present, &item.origin, locator));
                    ok = false;
                }
            }
        }
        ok
    }

    fn derive(&self, row: &mut Row) {
        for (name, template) in &self.derive {
            let v = render_template(template, row);
            row.insert(name.clone(), Value::String(v));
        }
    }

    /// Whether a column's value can change in `derive`.
    fn derived(&self, column: &str) -> bool {
        self.derive.iter().any(|(name, _)| name == column)
    }

    /// The conditions on columns that `derive` does not touch: checked before deriving, so
    /// rows a filter drops are never derived (same result, less work).
    fn keep_early(&self, row: &Row) -> bool {
        self.conditions
            .iter()
            .filter(|(c, _)| !self.derived(c))
            .all(|(c, cond)| cond.holds(row.get(c)))
    }

    /// The conditions on derived columns, after deriving.
    fn keep_late(&self, row: &Row) -> bool {
        self.conditions
            .iter()
            .filter(|(c, _)| self.derived(c))
            .all(|(c, cond)| cond.holds(row.get(c)))
    }
}

/// `${column}` placeholders of a `derive` template replaced by the row's values as text
/// (`${row.column}` and dotted paths into JSON columns work too); missing values give "".
pub fn render_template(template: &str, row: &Row) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                let key = &after[..j];
                if let Some(v) = lookup(row, key).filter(|v| !v.is_null()) {
                    out.push_str(&as_text(v));
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn lookup<'a>(row: &'a Row, key: &str) -> Option<&'a Value> {
    if let Some(v) = row.get(key) {
        return Some(v);
    }
    let key = key.strip_prefix("row.").unwrap_or(key);
    if let Some(v) = row.get(key) {
        return Some(v);
    }
    let mut parts = key.split('.');
    let mut cur = row.get(parts.next()?)?;
    for p in parts {
        cur = match cur {
            Value::Object(m) => m.get(p)?,
            Value::Array(a) => a.get(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn cell_error(
    problem: CellProblem,
    column: &str,
    value: Option<&Value>,
    origin: &Origin,
    locator: &Locator,
) -> DataError {
    let label = match &problem {
        CellProblem::Missing => "no value".to_string(),
        CellProblem::NotA(kind) => format!("not {}", type_word(*kind)),
        CellProblem::NotAllowed(_) => "not an allowed value".to_string(),
    };
    let at = locator.locate(origin, Some(column), value, &label);
    // A workbook names the cell the way the sheet does; other data, the row.
    let row = match &at.cell {
        Some(cell) => format!("cell {cell}"),
        None => format!("row {}", origin.row),
    };
    let (code, message, help) = match &problem {
        CellProblem::Missing => (
            RunCode::RequiredValue,
            format!("Column \"{column}\" is required, but {row} has no value."),
            "fill in the value, or drop `required` from the column",
        ),
        CellProblem::NotA(kind) => (
            RunCode::WrongType,
            format!(
                "Column \"{column}\" must be {}, but {row} has {}.",
                type_word(*kind),
                value.map(show_value).unwrap_or_default()
            ),
            "fix the value in the data, or declare the column with another type",
        ),
        CellProblem::NotAllowed(allowed) => (
            RunCode::NotAllowed,
            format!(
                "Column \"{column}\" must be one of {}, but {row} has {}.",
                allowed
                    .iter()
                    .map(show_value)
                    .collect::<Vec<_>>()
                    .join(", "),
                value.map(show_value).unwrap_or_default()
            ),
            "fix the value in the data, or add it to the column's `one of` list",
        ),
    };
    DataError::new(code, message).at(at).help(help)
}

/// What the pipeline hands back: the rows, in order.
pub type Output = Vec<Row>;

/// The problems of one source: the first [`MAX_PROBLEMS_PER_SOURCE`] kept, the rest counted.
#[derive(Debug, Default)]
pub struct Problems {
    kept: Vec<DataError>,
    more: usize,
}

impl Problems {
    /// Records one problem.
    pub fn push(&mut self, e: DataError) {
        if self.kept.len() < MAX_PROBLEMS_PER_SOURCE {
            self.kept.push(e);
        } else {
            self.more += 1;
        }
    }

    /// Whether any problem was recorded.
    pub fn any(&self) -> bool {
        !self.kept.is_empty()
    }

    /// The problems, sorted, with the count of the others for `file`.
    pub fn into_errors(self, file: &str) -> DataErrors {
        let mut out = DataErrors {
            errors: self.kept,
            omitted: Vec::new(),
        };
        if self.more > 0 {
            out.omitted.push(Omitted {
                source: None,
                file: file.to_string(),
                count: self.more,
            });
        }
        out.sort();
        out
    }
}

/// Runs coercion, join, derive, where, sample and the row limit over `rows`. Every bad value
/// and every bad row the provider reports is a problem; reading goes on after them (up to
/// [`MAX_PROBLEMS_PER_SOURCE`] kept) and the source fails with all of them at the end. A
/// provider ends its rows after a problem it cannot read past (a syntax error).
pub fn run(
    spec: &Spec,
    rows: Rows<'_>,
    locator: &Locator,
    join: Option<&JoinIndex>,
    max_rows: Option<usize>,
) -> Result<Output, DataErrors> {
    let mut problems = Problems::default();
    let mut kept: Vec<Row> = Vec::new();
    let mut window: VecDeque<Row> = VecDeque::new();
    let mut seen = 0usize;
    let limit = max_rows.unwrap_or(usize::MAX);
    let too_many = |count: usize| -> DataError {
        DataError::new(
            RunCode::TooManyRows,
            format!(
                "The source gives {count} rows after its pipeline, more than the limit of {limit} (--max-rows)."
            ),
        )
        .in_file(&locator.file)
        .help("narrow the rows with `Keep rows where` or `Sample`, or raise `--max-rows`")
    };
    // Rows beyond the limit (without a sample) are counted, not kept, so the message can say
    // how many there are.
    let mut beyond = 0usize;
    'rows: for item in rows {
        let mut item = match item {
            Ok(item) => item,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if !spec.coerce(&mut item, locator, &mut problems) || problems.any() {
            // A source with a problem gives no rows: only the remaining values are checked.
            continue;
        }
        let joined = match join {
            Some(j) => j.apply(std::mem::take(&mut item.row)),
            None => vec![std::mem::take(&mut item.row)],
        };
        for mut row in joined {
            if !spec.keep_early(&row) {
                continue;
            }
            spec.derive(&mut row);
            if !spec.keep_late(&row) {
                continue;
            }
            let position = seen;
            seen += 1;
            match spec.sample {
                None => {
                    if kept.len() >= limit {
                        beyond += 1;
                        continue;
                    }
                    kept.push(row);
                }
                Some(Plan::First(n)) => {
                    kept.push(row);
                    if kept.len() >= n {
                        break 'rows;
                    }
                }
                Some(Plan::Last(n)) => {
                    if window.len() == n {
                        window.pop_front();
                    }
                    window.push_back(row);
                }
                Some(Plan::Every(n)) => {
                    if position.is_multiple_of(n) {
                        kept.push(row);
                    }
                }
                Some(Plan::Random { .. }) => kept.push(row),
            }
        }
    }
    if beyond > 0 {
        problems.push(too_many(kept.len() + beyond));
    }
    if problems.any() {
        return Err(problems.into_errors(&locator.file));
    }
    let out: Vec<Row> = match spec.sample {
        Some(Plan::Last(_)) => window.into(),
        Some(Plan::Random { count, seed }) => {
            let positions = sample::random_positions(kept.len(), count, seed);
            let mut slots: Vec<Option<Row>> = kept.into_iter().map(Some).collect();
            positions
                .into_iter()
                .filter_map(|p| slots[p].take())
                .collect()
        }
        _ => kept,
    };
    if out.len() > limit {
        return Err(too_many(out.len()).into());
    }
    Ok(out)
}

/// A location naming only the file, row and column (providers without line numbers).
pub fn plain_location(file: &str, origin: &Origin, field: Option<&str>) -> DataLocation {
    DataLocation {
        file: file.to_string(),
        row: Some(origin.row),
        field: field.map(str::to_string),
        ..DataLocation::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(values: Value) -> Vec<Item> {
        values
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, v)| Item {
                row: v.as_object().unwrap().clone(),
                origin: Origin {
                    row: i as u64 + 1,
                    ..Origin::default()
                },
            })
            .collect()
    }

    fn spec(ds: Value) -> Spec {
        Spec::new(&serde_json::from_value(ds).unwrap()).unwrap()
    }

    fn go(ds: Value, data: Value, join: Option<&JoinIndex>) -> Result<Vec<Row>, DataError> {
        let loc = Locator::plain("rows.json");
        run(
            &spec(ds),
            Box::new(rows(data).into_iter().map(Ok)),
            &loc,
            join,
            Some(1000),
        )
        .map_err(|e| e.first().clone())
    }

    #[test]
    fn derive_uses_earlier_columns_and_where_is_strict() {
        let out = go(
            json!({"provider": "inline", "columns": {"n": {"type": "number"}},
                   "derive": {"a": "${id}-${n}", "b": "[${a}] ${missing}", "c": "${meta.k}"},
                   "where": {"n": {"greaterThan": 1}, "id": {"matches": "^x"}}}),
            json!([{"id": "x1", "n": "1", "meta": {"k": 1}}, {"id": "x2", "n": "2", "meta": {"k": 2}},
                   {"id": "y3", "n": "3", "meta": {"k": 3}}]),
            None,
        )
        .unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["a"], json!("x2-2"));
        assert_eq!(out[0]["b"], json!("[x2-2] "));
        assert_eq!(out[0]["c"], json!("2"));
        // Type-sensitive equality: 2 is not "2".
        let none = go(
            json!({"provider": "inline", "where": {"n": "2"}}),
            json!([{"n": 2}]),
            None,
        )
        .unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn filters_on_derived_columns_see_the_derived_values() {
        // `n` is overwritten by derive; the condition on it must use the derived text.
        let out = go(
            json!({"derive": {"n": "x${n}"}, "where": {"n": "x2", "id": {"notEquals": "b"}}}),
            json!([{"id": "a", "n": 1}, {"id": "b", "n": 2}, {"id": "c", "n": 2}]),
            None,
        )
        .unwrap();
        assert_eq!(
            Value::Array(out.into_iter().map(Value::Object).collect()),
            json!([{"id": "c", "n": "x2"}])
        );
    }

    #[test]
    fn joins_inner_and_left_with_prefix() {
        let right =
            rows(json!([{"id": 1, "tier": "gold", "name": "R"}, {"id": "2", "tier": "silver"}]));
        let idx = |kind| {
            JoinIndex::new(
                "id".into(),
                kind,
                "t_".into(),
                right.iter().map(|i| i.row.clone()).collect(),
            )
        };
        let base = json!([{"id": "1", "name": "A"}, {"id": 2}, {"id": 3}]);
        let inner = go(json!({}), base.clone(), Some(&idx(JoinKind::Inner))).unwrap();
        assert_eq!(
            Value::Array(inner.into_iter().map(Value::Object).collect()),
            json!([{"id": "1", "name": "A", "t_tier": "gold", "t_name": "R"}, {"id": 2, "t_tier": "silver"}])
        );
        let left = go(json!({}), base, Some(&idx(JoinKind::Left))).unwrap();
        assert_eq!(left.len(), 3);
        assert_eq!(left[2], json!({"id": 3}).as_object().unwrap().clone());
    }

    #[test]
    fn samples_and_limits() {
        let data = json!([{"i": 0}, {"i": 1}, {"i": 2}, {"i": 3}, {"i": 4}, {"i": 5}, {"i": 6}]);
        let ids = |out: Vec<Row>| {
            out.iter()
                .map(|r| r["i"].as_i64().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(go(json!({"sample": 2}), data.clone(), None).unwrap()),
            [0, 1]
        );
        assert_eq!(
            ids(go(json!({"sample": {"last": 2}}), data.clone(), None).unwrap()),
            [5, 6]
        );
        assert_eq!(
            ids(go(json!({"sample": {"every": 3}}), data.clone(), None).unwrap()),
            [0, 3, 6]
        );
        let loc = Locator::plain("rows.json");
        let e = run(
            &spec(json!({})),
            Box::new(rows(data).into_iter().map(Ok)),
            &loc,
            None,
            Some(5),
        )
        .unwrap_err();
        assert_eq!(e.code, "MCP-DATA-002");
        assert!(
            e.message.contains("more than the limit of 5"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_patterns_and_cells_are_named() {
        let e = Spec::new(
            &serde_json::from_value(json!({"where": {"id": {"matches": "(unclosed"}}})).unwrap(),
        )
        .unwrap_err();
        assert_eq!(e.code, "MCP-DATA-038");
        let e = go(
            json!({"columns": {"tier": {"type": "string", "enum": ["gold", "silver"]}}}),
            json!([{"tier": "gold"}, {"tier": "platinum"}]),
            None,
        )
        .unwrap_err();
        assert_eq!(e.code, "MCP-DATA-022");
        assert_eq!(
            e.message,
            "Column \"tier\" must be one of \"gold\", \"silver\", but row 2 has \"platinum\"."
        );
        let at = e.at.unwrap();
        assert_eq!(
            (at.file.as_str(), at.row, at.field.as_deref()),
            ("rows.json", Some(2), Some("tier"))
        );
    }
}
