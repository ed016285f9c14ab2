//! The rules for resources, resource templates and prompts (MCP016–MCP030), which mcptest
//! does not have.

use std::collections::BTreeMap;

use serde_json::Value;

use super::text::{describe_invisible, poison_phrases};
use super::tools::text_fields;
use super::uri::{absolute_uri_error, parse_template};
use super::{Finding, Kind, LintRule, description_problem, finding, repeats_name, valid_name};
use crate::surface::Surface;

pub(super) fn check(surface: &Surface, out: &mut Vec<Finding>) {
    let resources = keyed(&surface.resources, "uri", "resource");
    duplicates(&surface.resources, &resources, "uri", |uri, n| {
        out.push(finding(
            LintRule::Mcp017,
            Kind::Resource,
            uri,
            format!("{n} resources have the URI '{uri}'"),
        ));
    });
    for (r, name) in surface.resources.iter().zip(&resources) {
        let mut push = |code, m: String| out.push(finding(code, Kind::Resource, name, m));
        match r.get("uri") {
            Some(Value::String(uri)) => {
                if let Some(why) = absolute_uri_error(uri) {
                    push(
                        LintRule::Mcp016,
                        format!("invalid resource URI '{uri}': {why}"),
                    );
                }
            }
            _ => push(LintRule::Mcp016, "resource has no uri".into()),
        }
        common(r, &mut push);
    }

    let templates = keyed(&surface.resource_templates, "uriTemplate", "template");
    duplicates(
        &surface.resource_templates,
        &templates,
        "uriTemplate",
        |t, n| {
            out.push(finding(
                LintRule::Mcp020,
                Kind::ResourceTemplate,
                t,
                format!("{n} resource templates have the uriTemplate '{t}'"),
            ));
        },
    );
    for (r, name) in surface.resource_templates.iter().zip(&templates) {
        let mut push = |code, m: String| out.push(finding(code, Kind::ResourceTemplate, name, m));
        match r.get("uriTemplate") {
            Some(Value::String(t)) if !t.is_empty() => match parse_template(t) {
                Err(why) => push(
                    LintRule::Mcp018,
                    format!("invalid URI template '{t}': {why}"),
                ),
                Ok(parsed) if parsed.variables.is_empty() => push(
                    LintRule::Mcp019,
                    format!("uriTemplate '{t}' has no variables; list it as a resource instead"),
                ),
                Ok(_) => {}
            },
            _ => push(
                LintRule::Mcp018,
                "resource template has no uriTemplate".into(),
            ),
        }
        common(r, &mut push);
    }

    let prompts = keyed(&surface.prompts, "name", "prompt");
    duplicates(&surface.prompts, &prompts, "name", |p, n| {
        out.push(finding(
            LintRule::Mcp025,
            Kind::Prompt,
            p,
            format!("{n} prompts are named '{p}'"),
        ));
    });
    for (p, name) in surface.prompts.iter().zip(&prompts) {
        let mut push = |code, m: String| out.push(finding(code, Kind::Prompt, name, m));
        if let Some(Value::String(n)) = p.get("name")
            && !n.is_empty()
            && !valid_name(n)
        {
            push(LintRule::Mcp024, format!("invalid prompt name '{n}'"));
        }
        common(p, &mut push);
        if let Some(Value::Array(args)) = p.get("arguments") {
            arguments(args, &mut push);
        }
    }
}

/// Each item's key (`uri`, `uriTemplate`, `name`), or `(KIND N)` when it has none.
fn keyed(items: &[Value], key: &str, kind: &str) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v.get(key) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => format!("({kind} {})", i + 1),
        })
        .collect()
}

/// Calls `f(key, count)` once for every key that more than one item has.
fn duplicates(items: &[Value], keys: &[String], key: &str, mut f: impl FnMut(&str, usize)) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (item, k) in items.iter().zip(keys) {
        if item.get(key).is_some_and(Value::is_string) {
            *counts.entry(k.as_str()).or_default() += 1;
        }
    }
    for (k, n) in counts {
        if n > 1 {
            f(k, n);
        }
    }
}

/// The rules every resource, template and prompt shares: a name, a description of a useful
/// length, and no model instructions or invisible characters in what a model reads.
fn common(item: &Value, push: &mut dyn FnMut(LintRule, String)) {
    let named = item
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.trim().is_empty());
    if !named {
        push(LintRule::Mcp021, "has no name".into());
    }
    match description_problem(item.get("description")) {
        Some((LintRule::Mcp004, m)) => push(LintRule::Mcp022, m),
        Some((_, m)) => push(LintRule::Mcp023, m),
        None => {}
    }
    text_fields(item, &mut |label, text| {
        let phrases = poison_phrases(text);
        if !phrases.is_empty() {
            let quoted: Vec<String> = phrases.iter().map(|p| format!("'{p}'")).collect();
            push(
                LintRule::Mcp029,
                format!("{label} says {}", quoted.join(", ")),
            );
        }
        let hidden = describe_invisible(text);
        if !hidden.is_empty() {
            push(LintRule::Mcp030, format!("{label} contains {hidden}"));
        }
    });
}

/// MCP026–MCP028 over a prompt's arguments.
fn arguments(args: &[Value], push: &mut dyn FnMut(LintRule, String)) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, a) in args.iter().enumerate() {
        let Some(name) = a
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            push(LintRule::Mcp026, format!("argument {} has no name", i + 1));
            continue;
        };
        *counts.entry(name).or_default() += 1;
        match a
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            None => push(
                LintRule::Mcp027,
                format!("argument '{name}' has no description"),
            ),
            Some(d) if repeats_name(name, d) => push(
                LintRule::Mcp028,
                format!("argument '{name}' description just repeats its name: '{d}'"),
            ),
            Some(_) => {}
        }
    }
    for (name, n) in counts {
        if n > 1 {
            push(
                LintRule::Mcp026,
                format!("{n} arguments are named '{name}'"),
            );
        }
    }
}
