//! Data sources: phrases when they fit, else a YAML block.

use super::*;
use crate::ir::{ColumnType, Provider, Sample, WhereCondition};

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
    if !only_phrased_fields(s) {
        return None;
    }
    let mut lines = vec![origin_line(s)?];
    for (name, c) in s.columns.iter().flat_map(|c| c.iter()) {
        lines.push(column_line(name, c)?);
    }
    for (name, template) in s.derive.iter().flat_map(|d| d.iter()) {
        lines.push(format!(
            "Derive {} as {}",
            qname(name)?,
            rest_text(template)?
        ));
    }
    for (column, cond) in s.filter.iter().flat_map(|f| f.iter()) {
        lines.push(format!(
            "Keep rows where {} {}",
            qname(column)?,
            condition_tail(cond)?
        ));
    }
    if let Some(sample) = &s.sample {
        lines.push(sample_line(sample)?);
    }
    if s.cache == Some(true) {
        lines.push("Cache this source".into());
    }
    Some(lines)
}

/// Whether the source sets only what phrases can set; anything else goes to the YAML form.
fn only_phrased_fields(s: &DataSource) -> bool {
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
    rest == DataSource::default() && s.cache != Some(false)
}

/// `From CSV "file" [sheet …] [at …]` or `From REST "url" [at …]`.
fn origin_line(s: &DataSource) -> Option<String> {
    let at = match &s.path {
        Some(path) => format!(" at {}", qname(path)?),
        None => String::new(),
    };
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
            Some(format!("From {kind} {}{sheet}{at}", qname(f)?))
        }
        (Provider::Rest, None, Some(u)) if s.sheet.is_none() => {
            Some(format!("From REST {}{at}", qname(u)?))
        }
        _ => None,
    }
}

/// `Column "name" is TYPE [required] [one of …]`.
fn column_line(name: &str, c: &crate::ir::Column) -> Option<String> {
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
    Some(format!(
        "Column {} is {kind}{required}{one_of}",
        qname(name)?
    ))
}

/// What follows the column in `Keep rows where "column" …`: one comparison, whose numbers
/// read back as written.
fn condition_tail(cond: &WhereCondition) -> Option<String> {
    let o = match cond {
        WhereCondition::Equals(v) if !v.is_array() && !v.is_object() => {
            return Some(format!("equals {}", typed_text(v)?));
        }
        WhereCondition::Operators(o) => o,
        _ => return None,
    };
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
    // Numbers in phrases are whole and signed 64-bit; a greater/less-than must read back.
    let fits = |n: &serde_json::Number| values::typed(&n.to_string()) == Value::Number(n.clone());
    if let Some(v) = &o.not_equals {
        Some(format!("does not equal {}", typed_text(v)?))
    } else if let Some(items) = &o.one_of {
        let texts: Option<Vec<String>> = items
            .iter()
            .map(|v| typed_text(v).filter(|t| !t.contains(',') && values::typed(t.trim()) == *v))
            .collect();
        let texts = texts?;
        if texts.is_empty() {
            return None;
        }
        Some(format!("is one of {}", texts.join(", ")))
    } else if let Some(re) = &o.matches {
        Some(format!("matches {}", rest_text(re)?))
    } else if let Some(n) = o.greater_than.as_ref().filter(|n| fits(n)) {
        Some(format!("is greater than {n}"))
    } else {
        let n = o.less_than.as_ref().filter(|n| fits(n))?;
        Some(format!("is less than {n}"))
    }
}

/// `Sample first|last|every N rows` or `Sample N rows with seed S`, whose numbers phrases
/// can hold (signed 64-bit).
fn sample_line(sample: &Sample) -> Option<String> {
    let fits = |n: u64| i64::try_from(n).is_ok();
    match sample {
        Sample::First(f) if fits(f.first) => Some(format!("Sample first {}", rows(f.first))),
        Sample::Last(l) if fits(l.last) => Some(format!("Sample last {}", rows(l.last))),
        Sample::Every(e) if fits(e.every) => Some(format!("Sample every {}", rows(e.every))),
        Sample::Random(r) if fits(r.count) => {
            let seed = r.seed.filter(|s| fits(*s))?;
            Some(format!("Sample {} with seed {seed}", rows(r.count)))
        }
        _ => None,
    }
}
