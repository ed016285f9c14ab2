//! Data declarations: `Data source:` blocks (phrases or YAML settings) become the suite's
//! `dataSources`; `For each row…` becomes a test's `forEach`. Nothing is loaded here: the
//! runtime reads the rows, so checking a file needs neither the data nor the network.

use super::Lower;
use super::values;
use crate::diagnostics::Problem;
use crate::ir::{
    Column, ColumnType, DataSource, ForEach, ForEachRows, OrderedMap, Provider, Sample,
    SampleEvery, SampleFirst, SampleLast, SampleRandom, WhereCondition, WhereOperators,
};
use crate::syntax::{Compare, Document, SampleMode, Stmt, Table, Text, ValueType};
use serde_json::{Map, Value};

/// Every `Data source:` block of the entry file, in declaration order.
pub fn sources(l: &mut Lower<'_>, doc: &Document) -> OrderedMap<DataSource> {
    let mut out = OrderedMap::new();
    for node in &doc.nodes {
        let Stmt::DataSourceHeader { name } = &node.stmt else {
            continue;
        };
        let source = if let Some(y) = &node.yaml {
            match &y.value {
                Some(v @ Value::Object(_)) => match serde_json::from_value::<DataSource>(v.clone())
                {
                    Ok(s) => Some(s),
                    Err(e) => {
                        let text = &l.map.get(l.entry).text()[y.span.range()];
                        let lead = text.len() - text.trim_start().len();
                        let start = y.span.start as usize + lead;
                        let end = start + text.trim_start().find('\n').unwrap_or(text.trim().len());
                        l.report(
                            Problem::BadDataSourceSettings {
                                reason: e.to_string(),
                            },
                            l.entry,
                            crate::source::Span::new(start, end),
                        );
                        None
                    }
                },
                // Not a mapping, or invalid YAML: reported by the parser.
                _ => None,
            }
        } else if node.children.is_empty() {
            // An empty block: reported by the parser.
            None
        } else {
            Some(phrases(l, &node.children))
        };
        let Some(source) = source else {
            out.insert(name.value.clone(), DataSource::default());
            continue;
        };
        let has_origin = source.provider.is_some()
            || source.file.is_some()
            || source.url.is_some()
            || source.rows.is_some()
            || source.module.is_some()
            || source.spreadsheet_id.is_some();
        if !has_origin {
            l.report(
                Problem::DataSourceWithoutOrigin {
                    name: name.value.clone(),
                },
                l.entry,
                name.span,
            );
        }
        out.insert(name.value.clone(), source);
    }
    out
}

/// A data source written in phrases.
fn phrases(l: &mut Lower<'_>, nodes: &[crate::syntax::Node]) -> DataSource {
    let mut s = DataSource::default();
    for node in nodes {
        match &node.stmt {
            Stmt::From {
                provider,
                file,
                sheet,
            } => {
                s.provider = Some(match provider.value.as_str() {
                    "csv" => Provider::Csv,
                    "json" => Provider::Json,
                    "yaml" => Provider::Yaml,
                    _ => Provider::Excel,
                });
                s.file = Some(file.value.clone());
                s.sheet = sheet.as_ref().map(|t| t.value.clone());
            }
            Stmt::FromRest { url, at } => {
                s.provider = Some(Provider::Rest);
                s.url = Some(url.value.clone());
                s.path = at.as_ref().map(|t| t.value.clone());
            }
            Stmt::Column {
                name,
                kind,
                required,
                one_of,
            } => {
                let kind = match kind {
                    ValueType::String => ColumnType::String,
                    ValueType::Number => ColumnType::Number,
                    ValueType::Boolean => ColumnType::Boolean,
                    ValueType::Date => ColumnType::Date,
                    ValueType::Json => ColumnType::Json,
                    other => {
                        l.report(
                            Problem::BadDataSourceSettings {
                                reason: format!(
                                    "a column is string, number, boolean, date or json, not {}",
                                    serde_json::to_value(other)
                                        .ok()
                                        .and_then(|v| v.as_str().map(str::to_string))
                                        .unwrap_or_default()
                                ),
                            },
                            l.entry,
                            node.span,
                        );
                        continue;
                    }
                };
                let allowed: Vec<Value> = one_of.iter().map(|t| values::typed(&t.value)).collect();
                s.columns.get_or_insert_with(OrderedMap::new).insert(
                    name.value.clone(),
                    Column {
                        kind: Some(kind),
                        required: required.then_some(true),
                        allowed: (!allowed.is_empty()).then_some(allowed),
                    },
                );
            }
            Stmt::Derive { name, template } => {
                s.derive
                    .get_or_insert_with(OrderedMap::new)
                    .insert(name.value.clone(), template.value.clone());
            }
            Stmt::KeepRowsWhere {
                column,
                compare,
                value,
            } => {
                if let Some(c) = condition(l, *compare, value) {
                    s.filter
                        .get_or_insert_with(OrderedMap::new)
                        .insert(column.value.clone(), c);
                }
            }
            Stmt::Sample { mode, count } => {
                if let Some(n) = count.value.and_then(|n| u64::try_from(n).ok()) {
                    s.sample = Some(match mode {
                        SampleMode::First => Sample::First(SampleFirst { first: n }),
                        SampleMode::Last => Sample::Last(SampleLast { last: n }),
                        SampleMode::Every => Sample::Every(SampleEvery { every: n }),
                    });
                }
            }
            Stmt::SampleSeeded { count, seed } => {
                if let (Some(n), Some(seed)) = (
                    count.value.and_then(|n| u64::try_from(n).ok()),
                    seed.value.and_then(|n| u64::try_from(n).ok()),
                ) {
                    s.sample = Some(Sample::Random(SampleRandom {
                        count: n,
                        seed: Some(seed),
                    }));
                }
            }
            Stmt::Cache => s.cache = Some(true),
            _ => {}
        }
    }
    s
}

/// Removes one pair of matching outer quotes.
fn unquote(text: &str) -> &str {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        &t[1..t.len() - 1]
    } else {
        t
    }
}

/// One `Keep rows where` condition. Only `is one of` splits its value on commas.
fn condition(l: &mut Lower<'_>, compare: Compare, value: &Text) -> Option<WhereCondition> {
    let ops = |f: &dyn Fn(&mut WhereOperators)| {
        let mut o = WhereOperators::default();
        f(&mut o);
        Some(WhereCondition::Operators(o))
    };
    match compare {
        Compare::Equals => Some(WhereCondition::Equals(values::typed(&value.value))),
        Compare::NotEquals => {
            let v = values::typed(&value.value);
            ops(&|o| o.not_equals = Some(v.clone()))
        }
        Compare::OneOf => {
            let items: Vec<Value> = value
                .value
                .split(',')
                .map(str::trim)
                .filter(|i| !i.is_empty())
                .map(values::typed)
                .collect();
            ops(&|o| o.one_of = Some(items.clone()))
        }
        Compare::Matches => {
            let re = unquote(&value.value).to_string();
            ops(&|o| o.matches = Some(re.clone()))
        }
        Compare::GreaterThan | Compare::LessThan | Compare::Contains => {
            let Value::Number(n) = values::typed(&value.value) else {
                l.report(
                    Problem::NonNumericFilter {
                        value: value.value.clone(),
                    },
                    l.entry,
                    value.span,
                );
                return None;
            };
            if compare == Compare::LessThan {
                ops(&|o| o.less_than = Some(n.clone()))
            } else {
                ops(&|o| o.greater_than = Some(n.clone()))
            }
        }
    }
}

/// The rows of an inline table, each cell YAML-typed (an empty cell is `null`).
pub fn inline_rows(table: &Table) -> Option<ForEach> {
    if table.rows.is_empty() {
        return None;
    }
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let mut m = Map::new();
            for (h, c) in table.header.iter().zip(row) {
                m.insert(h.text.clone(), values::typed(&c.text));
            }
            m
        })
        .collect();
    Some(ForEach::Rows(ForEachRows { rows }))
}
