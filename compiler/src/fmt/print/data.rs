//! Data sources: phrases when they fit, else a YAML block.

use super::*;

pub(super) fn data_source(p: &mut Printer, name: &str, source: &DataSource) {
    let Some(n) = qname(name) else { return };
    p.line(0, &format!("Data source: {n}"));
    if let Some(lines) = source_phrases(source) {
        for line in lines {
            p.line(2, &line);
        }
    } else if let Ok(Value::Object(m)) = serde_json::to_value(source) {
        p.block(0, &m);
    }
}

/// `1 row`, `2 rows`.
pub(super) fn rows(n: u64) -> String {
    if n == 1 {
        "1 row".into()
    } else {
        format!("{n} rows")
    }
}

/// A data source in phrases, when the phrases lower back to exactly this source.
pub(super) fn source_phrases(s: &DataSource) -> Option<Vec<String>> {
    use crate::ir::{ColumnType, Provider, Sample, WhereCondition};
    // What phrases can set; anything else goes to the YAML form.
    let mut rest = s.clone();
    rest.provider = None;
    rest.file = None;
    rest.url = None;
    rest.sheet = None;
    rest.path = None;
    rest.columns = None;
    rest.derive = None;
    rest.filter = None;
    rest.sample = None;
    rest.cache = None;
    if rest != DataSource::default() || s.cache == Some(false) {
        return None;
    }
    let mut lines = Vec::new();
    match (s.provider?, &s.file, &s.url) {
        (
            p @ (Provider::Csv | Provider::Json | Provider::Yaml | Provider::Excel),
            Some(f),
            None,
        ) if s.path.is_none() || matches!(p, Provider::Json | Provider::Yaml) => {
            let kind = match p {
                Provider::Csv => "CSV",
                Provider::Json => "JSON",
                Provider::Yaml => "YAML",
                _ => "Excel",
            };
            let sheet = match &s.sheet {
                Some(sh) => format!(" sheet {}", qname(sh)?),
                None => String::new(),
            };
            let at = match &s.path {
                Some(path) => format!(" at {}", qname(path)?),
                None => String::new(),
            };
            lines.push(format!("From {kind} {}{sheet}{at}", qname(f)?));
        }
        (Provider::Rest, None, Some(u)) if s.sheet.is_none() => {
            let at = match &s.path {
                Some(path) => format!(" at {}", qname(path)?),
                None => String::new(),
            };
            lines.push(format!("From REST {}{at}", qname(u)?));
        }
        _ => return None,
    }
    for (name, c) in s.columns.iter().flat_map(|c| c.iter()) {
        let kind = match c.kind? {
            ColumnType::String => "string",
            ColumnType::Number => "number",
            ColumnType::Boolean => "boolean",
            ColumnType::Date => "date",
            ColumnType::Json => "json",
        };
        let required = match c.required {
            None => "",
            Some(true) => " required",
            Some(false) => return None,
        };
        let one_of = match &c.allowed {
            None => String::new(),
            Some(items) if items.is_empty() => return None,
            Some(items) => {
                let texts: Option<Vec<String>> = items
                    .iter()
                    .map(|v| typed_text(v).filter(|t| !t.contains(',') || t.starts_with('"')))
                    .collect();
                format!(" one of {}", texts?.join(", "))
            }
        };
        lines.push(format!(
            "Column {} is {kind}{required}{one_of}",
            qname(name)?
        ));
    }
    for (name, template) in s.derive.iter().flat_map(|d| d.iter()) {
        lines.push(format!(
            "Derive {} as {}",
            qname(name)?,
            rest_text(template)?
        ));
    }
    for (column, cond) in s.filter.iter().flat_map(|f| f.iter()) {
        let tail = match cond {
            WhereCondition::Equals(v) if !v.is_array() && !v.is_object() => {
                format!("equals {}", typed_text(v)?)
            }
            WhereCondition::Operators(o) => {
                let set = [
                    o.equals.is_some(),
                    o.not_equals.is_some(),
                    o.one_of.is_some(),
                    o.matches.is_some(),
                    o.greater_than.is_some(),
                    o.less_than.is_some(),
                ];
                if set.iter().filter(|b| **b).count() != 1 {
                    return None;
                }
                if let Some(v) = &o.not_equals {
                    format!("does not equal {}", typed_text(v)?)
                } else if let Some(items) = &o.one_of {
                    let texts: Option<Vec<String>> = items
                        .iter()
                        .map(|v| {
                            typed_text(v)
                                .filter(|t| !t.contains(',') && values::typed(t.trim()) == *v)
                        })
                        .collect();
                    let texts = texts?;
                    if texts.is_empty() {
                        return None;
                    }
                    format!("is one of {}", texts.join(", "))
                } else if let Some(re) = &o.matches {
                    format!("matches {}", rest_text(re)?)
                } else if let Some(n) = &o.greater_than {
                    format!("is greater than {n}")
                } else if let Some(n) = &o.less_than {
                    format!("is less than {n}")
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        lines.push(format!("Keep rows where {} {tail}", qname(column)?));
    }
    match &s.sample {
        None => {}
        Some(Sample::First(f)) => lines.push(format!("Sample first {}", rows(f.first))),
        Some(Sample::Last(l)) => lines.push(format!("Sample last {}", rows(l.last))),
        Some(Sample::Every(e)) => lines.push(format!("Sample every {}", rows(e.every))),
        Some(Sample::Random(r)) => {
            lines.push(format!("Sample {} with seed {}", rows(r.count), r.seed?))
        }
        Some(Sample::Count(_)) => return None,
    }
    if s.cache == Some(true) {
        lines.push("Cache this source".into());
    }
    // Numbers in phrases are whole and signed 64-bit; a greater/less-than must read back.
    let fits = |n: &serde_json::Number| values::typed(&n.to_string()) == Value::Number(n.clone());
    if let Some(f) = &s.filter {
        for c in f.values() {
            if let WhereCondition::Operators(o) = c
                && [&o.greater_than, &o.less_than]
                    .into_iter()
                    .flatten()
                    .any(|n| !fits(n))
            {
                return None;
            }
        }
    }
    let too_big = |n: u64| i64::try_from(n).is_err();
    match &s.sample {
        Some(Sample::First(f)) if too_big(f.first) => return None,
        Some(Sample::Last(l)) if too_big(l.last) => return None,
        Some(Sample::Every(e)) if too_big(e.every) => return None,
        Some(Sample::Random(r)) if too_big(r.count) || r.seed.is_some_and(too_big) => {
            return None;
        }
        _ => {}
    }
    Some(lines)
}
