//! Document settings: the target and its options, the suite-wide settings.

use super::*;

/// The `Server options` block that gives a target its settings beyond command and URL.
pub(super) fn target_options(target: &Target) -> Map<String, Value> {
    // Named member by member, so a new one must be printed here.
    match target {
        Target::Stdio(StdioTarget {
            command: _,
            args: _,
            cwd: _,
            env: _,
            inherit_env: _,
        })
        | Target::StreamableHttp(HttpTarget {
            url: _,
            headers: _,
            token_from: _,
            oauth: _,
        })
        | Target::Sse(HttpTarget { .. }) => {}
    }
    let mut m = Map::new();
    match target {
        Target::Stdio(t) => {
            if let Some(cwd) = &t.cwd {
                m.insert("cwd".into(), Value::String(cwd.clone()));
            }
            if let Some(env) = &t.env {
                m.insert("env".into(), string_map(env));
            }
            match &t.inherit_env {
                Some(InheritEnv::All(all)) => {
                    m.insert("inherit env".into(), Value::Bool(*all));
                }
                Some(InheritEnv::Names(names)) => {
                    m.insert("inherit env".into(), json!(names));
                }
                None => {}
            }
        }
        Target::StreamableHttp(h) | Target::Sse(h) => {
            if matches!(target, Target::Sse(_)) {
                m.insert("transport".into(), json!("sse"));
            }
            http_options(&mut m, h);
        }
    }
    m
}

pub(super) fn http_options(m: &mut Map<String, Value>, h: &HttpTarget) {
    if let Some(headers) = &h.headers {
        m.insert("headers".into(), string_map(headers));
    }
    if let Some(cmd) = &h.token_from {
        m.insert("tokenFrom".into(), Value::String(cmd.clone()));
    }
    match &h.oauth {
        Some(OAuth::Enabled(b)) => {
            m.insert("oauth".into(), Value::Bool(*b));
        }
        Some(OAuth::Settings(s)) => {
            m.insert(
                "oauth".into(),
                serde_json::to_value(s).unwrap_or(Value::Null),
            );
        }
        None => {}
    }
}

pub(super) fn string_map(map: &OrderedMap<String>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.clone())))
            .collect(),
    )
}

/// A command line whose words [`crate::command_line::split`] gives back: plain words as
/// they are; a word with a double quote (and no single quote) in single quotes; others in
/// double quotes, with `\"`, `\\`, `\$` and `` \` `` escaped.
pub(super) fn command_line<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| {
            let plain = !w.is_empty()
                && !w.starts_with('~')
                && !w.contains(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'));
            if plain {
                w.to_string()
            } else if w.contains('"') && !w.contains('\'') {
                format!("'{w}'")
            } else {
                let mut out = String::from("\"");
                for c in w.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
                out
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn settings(p: &mut Printer, suite: &Suite) {
    if let Some(ms) = suite.defaults.as_ref().and_then(|d| d.timeout_ms)
        && let Some(d) = duration(ms)
    {
        p.line(0, &format!("Default timeout: {d}"));
    }
    if let Some(ms) = suite.defaults.as_ref().and_then(|d| d.shutdown_grace_ms)
        && let Some(d) = duration(ms)
    {
        p.line(0, &format!("Shutdown grace: {d}"));
    }
    if let Some(n) = suite.defaults.as_ref().and_then(|d| d.retries) {
        p.line(0, &format!("Default retries: {n}"));
    }
    match suite.defaults.as_ref().and_then(|d| d.session) {
        Some(crate::ir::SessionMode::Shared) => p.line(0, "Session: shared"),
        Some(crate::ir::SessionMode::PerTest) => p.line(0, "Session: per test"),
        None => {}
    }
    if let Some(m) = suite.minimum_coverage
        && m.fract() == 0.0
        && (0.0..=100.0).contains(&m)
    {
        p.line(0, &format!("Minimum coverage: {m}%"));
    }
    for b in suite.budgets.iter().flatten() {
        let Some(max) = duration(b.max_ms) else {
            continue;
        };
        let target = if b.test == "*" {
            String::new()
        } else {
            match qname(&b.test) {
                Some(q) => format!(" for {q}"),
                None => continue,
            }
        };
        let window = b
            .window
            .map(|w| format!(" over {w} calls"))
            .unwrap_or_default();
        p.line(
            0,
            &format!("Budget{target}: p{} {max}{window}", b.percentile),
        );
    }
    if let Some(redact) = &suite.redact {
        // `Redact: ""` keeps an empty list written as such.
        let items = if redact.is_empty() {
            Some("\"\"".to_string())
        } else {
            list(redact)
        };
        if let Some(items) = items {
            p.line(0, &format!("Redact: {items}"));
        }
    }
    if let Some(s) = &suite.snapshots {
        if let Some(file) = s.file.as_ref().and_then(|f| rest_plain(f)) {
            p.line(0, &format!("Snapshots: {file}"));
        }
        if let Some(items) = s
            .ignore
            .as_ref()
            .filter(|i| !i.is_empty())
            .and_then(|i| list(i))
        {
            p.line(0, &format!("Ignore snapshot paths: {items}"));
        }
    }
    if let Some(client) = suite.client.as_ref().filter(|c| !c.is_empty())
        && let Ok(Value::Object(m)) = serde_json::to_value(client)
    {
        p.line(0, "Client behavior:");
        p.block(0, &m);
    }
    if let Some(ext) = &suite.extensions {
        let only_functions = ext.permissions.is_none()
            && ext.allowlist.is_none()
            && ext.unsafe_legacy.is_none()
            && ext.functions.as_ref().is_some_and(|f| !f.is_empty());
        match ext.functions.as_ref().and_then(|f| plain_list(f)) {
            Some(items) if only_functions => p.line(0, &format!("Functions: {items}")),
            _ => {
                if let Ok(Value::Object(m)) = serde_json::to_value(ext)
                    && !m.is_empty()
                {
                    p.line(0, "Extensions:");
                    p.block(0, &m);
                }
            }
        }
    }
}
