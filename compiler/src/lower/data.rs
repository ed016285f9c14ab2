//! Data declarations: `Data source:` blocks (phrases or YAML settings) become the suite's
//! `dataSources`; `For each row…` becomes a test's `forEach`. Nothing is loaded here: the
//! runtime reads the rows, so checking a file needs neither the data nor the network.

use super::Lower;
use crate::diagnostics::Problem;
use crate::ir::{
    Column, ColumnType, DataSource, ForEach, ForEachRows, OrderedMap, Provider, Sample,
    SampleEvery, SampleFirst, SampleLast, SampleRandom, WhereCondition, WhereOperators,
};
use crate::syntax::{Compare, Document, SampleMode, Stmt, Table, Text, ValueType};
use crate::values;
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
                Some(v @ Value::Object(_)) => {
                    match serde_json::from_value::<DataSource>(column_shorthand(v.clone())) {
                        Ok(s) => Some(s),
                        Err(e) => {
                            let text = &l.map.get(l.entry).text()[y.span.range()];
                            let lead = text.len() - text.trim_start().len();
                            let start = y.span.start as usize + lead;
                            let end =
                                start + text.trim_start().find('\n').unwrap_or(text.trim().len());
                            l.report(
                                Problem::BadDataSourceSettings {
                                    reason: e.to_string(),
                                },
                                l.entry,
                                crate::source::Span::new(start, end),
                            );
                            None
                        }
                    }
                }
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

/// A column given as a bare type name (`active: boolean`) is short for `{type: boolean}`, in
/// the settings of a source and of the source it joins.
fn column_shorthand(mut v: Value) -> Value {
    if let Some(Value::Object(columns)) = v.get_mut("columns") {
        for column in columns.values_mut() {
            if let Value::String(kind) = column {
                let mut typed = Map::new();
                typed.insert("type".into(), Value::String(std::mem::take(kind)));
                *column = Value::Object(typed);
            }
        }
    }
    if let Some(join) = v.get_mut("join") {
        *join = column_shorthand(std::mem::take(join));
    }
    v
}

/// Warns about the data sources of the entry file no test takes its rows from: they are not
/// loaded, by `mcpr run` or `mcpr check --data`. `sources` are those the tests iterate.
pub fn report_unused<'t>(
    l: &mut Lower<'_>,
    doc: &Document,
    sources: impl Iterator<Item = &'t str>,
) {
    let used: Vec<&str> = sources.collect();
    for node in &doc.nodes {
        if let Stmt::DataSourceHeader { name } = &node.stmt
            && !used.contains(&name.value.as_str())
        {
            l.report(
                Problem::UnusedDataSource {
                    name: name.value.clone(),
                },
                l.entry,
                name.span,
            );
        }
    }
}

/// A data source written in phrases.
fn phrases(l: &mut Lower<'_>, nodes: &[crate::syntax::Node]) -> DataSource {
    let mut s = DataSource::default();
    for node in nodes {
        match &node.stmt {
            Stmt::From { .. } | Stmt::FromRest { .. } => origin(l, &mut s, node),
            Stmt::Column { .. } => column(l, &mut s, node),
            Stmt::Derive { name, template } => {
                if s.derive
                    .as_ref()
                    .is_some_and(|d| d.get(&name.value).is_some())
                {
                    again(
                        l,
                        node,
                        &format!("derives the column \"{}\" twice", name.value),
                    );
                    continue;
                }
                s.derive
                    .get_or_insert_with(OrderedMap::new)
                    .insert(name.value.clone(), template.value.clone());
            }
            Stmt::KeepRowsWhere { .. } => keep_rows_where(l, &mut s, node),
            Stmt::Sample { .. } | Stmt::SampleSeeded { .. } if s.sample.is_some() => {
                again(l, node, "samples once; this is a second `Sample` line");
            }
            Stmt::Sample { .. } | Stmt::SampleSeeded { .. } => s.sample = sample(&node.stmt),
            Stmt::Cache => s.cache = Some(true),
            _ => {}
        }
    }
    s
}

/// `From csv|json|yaml|excel FILE [sheet …] [at …]` or `From REST URL [at …]`: where the
/// rows load from, once per data source.
fn origin(l: &mut Lower<'_>, s: &mut DataSource, node: &crate::syntax::Node) {
    if s.provider.is_some() {
        again(
            l,
            node,
            "loads from one place; this is a second `From` line",
        );
        return;
    }
    match &node.stmt {
        Stmt::From {
            provider,
            file,
            sheet,
            at,
        } => {
            s.provider = Some(match provider.value.as_str() {
                "csv" => Provider::Csv,
                "json" => Provider::Json,
                "yaml" => Provider::Yaml,
                _ => Provider::Excel,
            });
            s.file = Some(file.value.clone());
            s.sheet = sheet.as_ref().map(|t| t.value.clone());
            if let Some(at) = at {
                if matches!(s.provider, Some(Provider::Json | Provider::Yaml)) {
                    s.path = Some(at.value.clone());
                } else {
                    l.report(
                        Problem::BadDataSourceSettings {
                            reason: "`at` leads to the rows inside a JSON or YAML document; \
                                     a CSV file or a sheet has its rows at the top"
                                .into(),
                        },
                        l.entry,
                        at.span,
                    );
                }
            }
        }
        Stmt::FromRest { url, at } => {
            s.provider = Some(Provider::Rest);
            s.url = Some(url.value.clone());
            s.path = at.as_ref().map(|t| t.value.clone());
        }
        _ => {}
    }
}

/// `Column NAME is a TYPE [required] [one of …]`: a declared column, once per name.
fn column(l: &mut Lower<'_>, s: &mut DataSource, node: &crate::syntax::Node) {
    let Stmt::Column {
        name,
        kind,
        required,
        one_of,
    } = &node.stmt
    else {
        return;
    };
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
            return;
        }
    };
    let allowed: Vec<Value> = one_of.iter().map(|t| values::typed(&t.value)).collect();
    if s.columns
        .as_ref()
        .is_some_and(|c| c.get(&name.value).is_some())
    {
        again(
            l,
            node,
            &format!("declares the column \"{}\" twice", name.value),
        );
        return;
    }
    s.columns.get_or_insert_with(OrderedMap::new).insert(
        name.value.clone(),
        Column {
            kind: Some(kind),
            required: required.then_some(true),
            allowed: (!allowed.is_empty()).then_some(allowed),
        },
    );
}

/// `Keep rows where COLUMN COMPARE VALUE`: a condition joined to the column's others.
fn keep_rows_where(l: &mut Lower<'_>, s: &mut DataSource, node: &crate::syntax::Node) {
    let Stmt::KeepRowsWhere {
        column,
        compare,
        value,
    } = &node.stmt
    else {
        return;
    };
    let Some(c) = condition(l, *compare, value) else {
        return;
    };
    let filter = s.filter.get_or_insert_with(OrderedMap::new);
    // Every condition on a column must hold (a range: greater than 1 and less than 10), so
    // they join into one operator set; the same operator twice would make one of them
    // vanish and is an error.
    let merged = match filter.get(&column.value) {
        None => Some(c),
        Some(a) => merge_operators(&operators(a), &operators(&c)),
    };
    match merged {
        Some(c) => {
            filter.insert(column.value.clone(), c);
        }
        None => again(
            l,
            node,
            &format!(
                "has a condition on \"{}\" that contradicts or repeats an earlier one",
                column.value
            ),
        ),
    }
}

/// `Sample first|last|every N` or `Sample N rows at random with seed S`; none when a number
/// is not a count.
fn sample(stmt: &Stmt) -> Option<Sample> {
    let count = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
    match stmt {
        Stmt::Sample { mode, count: n } => {
            let n = count(n.value)?;
            Some(match mode {
                SampleMode::First => Sample::First(SampleFirst { first: n }),
                SampleMode::Last => Sample::Last(SampleLast { last: n }),
                SampleMode::Every => Sample::Every(SampleEvery { every: n }),
            })
        }
        Stmt::SampleSeeded { count: n, seed } => Some(Sample::Random(SampleRandom {
            count: count(n.value)?,
            seed: Some(count(seed.value)?),
        })),
        _ => None,
    }
}

/// Reports a phrase that would silently replace or contradict an earlier one of the block.
fn again(l: &mut Lower<'_>, node: &crate::syntax::Node, what: &str) {
    l.report(
        Problem::BadDataSourceSettings {
            reason: format!("a data source {what}"),
        },
        l.entry,
        node.span,
    );
}

/// A condition as its operator set (`equals gold` is `{equals: gold}`).
fn operators(c: &WhereCondition) -> WhereOperators {
    match c {
        WhereCondition::Operators(o) => o.clone(),
        WhereCondition::Equals(v) => WhereOperators {
            equals: Some(v.clone()),
            ..WhereOperators::default()
        },
        WhereCondition::OneOf(items) => WhereOperators {
            one_of: Some(items.clone()),
            ..WhereOperators::default()
        },
    }
}

/// Both operator sets in one, or `None` when they set the same operator.
fn merge_operators(a: &WhereOperators, b: &WhereOperators) -> Option<WhereCondition> {
    fn one<T: Clone>(x: &Option<T>, y: &Option<T>) -> Result<Option<T>, ()> {
        match (x, y) {
            (Some(_), Some(_)) => Err(()),
            (Some(v), None) | (None, Some(v)) => Ok(Some(v.clone())),
            (None, None) => Ok(None),
        }
    }
    let merged = (|| {
        Ok::<_, ()>(WhereOperators {
            equals: one(&a.equals, &b.equals)?,
            not_equals: one(&a.not_equals, &b.not_equals)?,
            one_of: one(&a.one_of, &b.one_of)?,
            matches: one(&a.matches, &b.matches)?,
            greater_than: one(&a.greater_than, &b.greater_than)?,
            less_than: one(&a.less_than, &b.less_than)?,
        })
    })();
    merged.ok().map(WhereCondition::Operators)
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
        // The `Keep rows where` grammar (syntax/grammar/data.rs) writes none of these.
        Compare::Contains
        | Compare::NotContains
        | Compare::AtLeast
        | Compare::AtMost
        | Compare::Between
        | Compare::Empty
        | Compare::NotEmpty => None,
        Compare::GreaterThan | Compare::LessThan => {
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
