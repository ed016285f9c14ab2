//! A test: its properties, its rows and its steps by section.

use super::*;

pub(super) fn test(p: &mut Printer, suite: &Suite, t: &Test) {
    // Named member by member, so a new one must be printed here. `logicalName` is written
    // only when it is not the test's name; `data` (the row an already expanded test came
    // from) as a `Data row:` block (an empty one has no form and is refused by
    // `to_mcpr_checked`).
    let Test {
        name: _,
        steps: _,
        id: _,
        skip: _,
        server: _,
        depends_on: _,
        requires: _,
        logical_name: _,
        variables: _,
        data: _,
        for_each: _,
        continue_on_failure: _,
        isolated: _,
        retries: _,
    } = t;
    p.line(
        0,
        &format!("Test: {}", rest_text(&t.name).unwrap_or_default()),
    );
    if let Some(id) = &t.id
        && *id != crate::names::slug(&t.name)
        && let Some(text) = rest_plain(id)
    {
        p.line(2, &format!("Id: {text}"));
    }
    if let Some(server) = t.server.as_ref().and_then(|s| qname(s)) {
        p.line(2, &format!("On server {server}"));
    }
    match &t.skip {
        Some(Skip::Flag(true)) => p.line(2, "Skip"),
        Some(Skip::Reason(r)) => match rest_text(r) {
            Some(r) if !r.trim_matches('"').trim().is_empty() => p.line(2, &format!("Skip: {r}")),
            _ => p.line(2, "Skip"),
        },
        _ => {}
    }
    if let Some(req) = &t.requires {
        if let Some(items) = req
            .capabilities
            .as_ref()
            .filter(|c| !c.is_empty())
            .and_then(|c| plain_list(c))
        {
            p.line(2, &format!("Require: {items}"));
        }
        if let Some(items) = req
            .protocol_versions
            .as_ref()
            .filter(|c| !c.is_empty())
            .and_then(|c| list(c))
        {
            p.line(2, &format!("Require protocol: {items}"));
        }
    }
    if let Some(items) = t
        .depends_on
        .as_ref()
        .filter(|d| !d.is_empty())
        .and_then(|d| plain_list(d))
    {
        p.line(2, &format!("Depends on: {items}"));
    }
    if let Some(logical) = &t.logical_name
        && *logical != t.name
        && let Some(text) = rest_text(logical)
    {
        p.line(2, &format!("Logical name: {text}"));
    }
    if let Some(data) = t.data.as_ref().filter(|d| !d.is_empty()) {
        p.line(2, "Data row:");
        p.block(2, data);
    }
    if t.continue_on_failure == Some(true) {
        p.line(2, "Continue on failure");
    }
    if t.isolated == Some(true) {
        p.line(2, "Isolated session");
    }
    if let Some(n) = t.retries {
        p.line(2, &format!("Retries: {n}"));
    }
    if let Some(vars) = t.variables.as_ref().filter(|v| !v.is_empty()) {
        p.line(2, "Variables:");
        p.block(2, vars);
    }
    match &t.for_each {
        Some(ForEach::Rows(rows)) => {
            p.line(2, "For each row:");
            if table_fits(&rows.rows) {
                for line in table(&rows.rows) {
                    p.line(4, &line);
                }
            } else {
                let items: Vec<Value> = rows.rows.iter().cloned().map(Value::Object).collect();
                emit::sequence(&mut p.out, &items, 4);
            }
        }
        Some(ForEach::File(f)) => {
            if let Some(file) = qname(&f.file) {
                let sheet = f
                    .sheet
                    .as_ref()
                    .and_then(|s| qname(s))
                    .map(|s| format!(" from sheet {s}"))
                    .unwrap_or_default();
                p.line(2, &format!("For each row in {file}{sheet}"));
            }
        }
        Some(ForEach::Source(s)) => {
            if let Some(source) = qname(&s.source) {
                p.line(2, &format!("For each row from {source}"));
            }
        }
        None => {}
    }
    let functions = suite
        .extensions
        .as_ref()
        .and_then(|e| e.functions.as_ref())
        .is_some();
    let mut section = Phase::Test;
    for step in &t.steps {
        // Printed as the runtime reads it: what the suite leaves unwritten is spelled out.
        let step = &crate::fmt::canonical_step(step);
        if let Some(phase) = step.phase
            && phase != section
        {
            p.line(
                2,
                match phase {
                    Phase::Setup => "Setup:",
                    Phase::Test => "Steps:",
                    Phase::Cleanup => "Cleanup:",
                },
            );
            section = phase;
        }
        let lines = phrases(step, section, functions, p.options.names_as_comments)
            .unwrap_or_else(|| run_step(step, section));
        for line in lines {
            p.line(2, &line);
        }
    }
}

/// An inline table with the columns of the first row, cells padded to line up (callers
/// check [`table_fits`] first).
pub(super) fn table(rows: &[Map<String, Value>]) -> Vec<String> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    let header: Vec<String> = first.keys().cloned().collect();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            header
                .iter()
                .map(|h| match row.get(h.as_str()) {
                    None | Some(Value::Null) => String::new(),
                    Some(v) => typed_text(v).unwrap_or_default(),
                })
                .collect()
        })
        .collect();
    table_lines(&header, &body)
}

/// Table lines: the header, a separator, the rows, cells padded to line up (what `mcpr fmt`
/// writes for an inline table too).
pub fn table_lines(header: &[String], body: &[Vec<String>]) -> Vec<String> {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(&header[i])
                .chain(body.iter().filter_map(|r| r.get(i)))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(1)
                .max(1)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {c}{} ", " ".repeat(w - c.chars().count())))
            .collect();
        format!("|{}|", padded.join("|"))
    };
    let mut lines = vec![line(header)];
    lines.push(format!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    ));
    lines.extend(body.iter().map(|r| line(r)));
    lines
}

/// Whether an inline table can hold these rows exactly: every row has the same columns in
/// the same order, and every cell can be written between `|`s and reads back as its value.
pub fn table_fits(rows: &[Map<String, Value>]) -> bool {
    let Some(first) = rows.first() else {
        return false;
    };
    let header: Vec<&String> = first.keys().collect();
    header.iter().all(|h| cell_ok(h) && !h.is_empty())
        && rows.iter().all(|row| {
            row.keys().collect::<Vec<_>>() == header
                && row.values().all(|v| match v {
                    Value::Null => true,
                    v => typed_text(v).is_some_and(|t| cell_ok(&t) && !t.is_empty()),
                })
        })
}

pub(super) fn cell_ok(t: &str) -> bool {
    !t.contains(['|', '\n', '\r', '\t']) && t.trim() == t
}
