//! `.mcpr` → Suite IR: document settings, targets, tests and their steps.
//!
//! The located tree is walked once per block. Flows are expanded where they are used
//! (`flows.rs`), data declarations become `dataSources` and `forEach` (`data.rs`), and the
//! dependency graph is checked once every test is known (`deps.rs`).

use super::Lower;
use super::data;
use super::deps::{self, BuiltTest};
use super::flows::{self, Flows, Scope};
use super::values::{self, normalise_path};
use crate::diagnostics::Problem;
use crate::ir::{
    self, Assert, Assertion, ErrorExpectation, Export, HttpTarget, JsonAssertions, JsonType,
    NativeAction, NativeStep, OAuth, OAuthSettings, OrderedMap, Phase, RequestStep, SetStep,
    SnapshotAssertion, SourceLocation, Status, Step, StepKind, Suite, Target, Test, ToolStep,
};
use crate::names::closest;
use crate::source::Span;
use crate::syntax::{Compare, Document, ListKind, Node, Stmt, Text, ValueType};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The utility functions every runtime provides (§3.8).
pub const BUILT_IN_FUNCTIONS: &[&str] = &[
    "lowercase",
    "uppercase",
    "trim",
    "join",
    "replace",
    "length",
    "number",
    "text",
    "json",
    "round",
    "urlEncode",
    "base64",
    "hash",
];

/// Where a target came from, so `Server options:` also reach the named entry it copies.
#[derive(Clone)]
enum Link {
    None,
    Server(String),
    Compare(String),
}

/// Document-level state collected in source order.
struct Settings {
    name: Option<String>,
    target: Option<(Target, Link)>,
    /// `Server from the command line` is in force (no later `Server:` or `MCP URL:`): the
    /// suite names no default server.
    target_from_command_line: bool,
    servers: OrderedMap<Target>,
    servers_at: Vec<(usize, Span)>,
    targets: OrderedMap<Target>,
    targets_at: Vec<(usize, Span)>,
    defaults: Option<ir::Defaults>,
    budgets: Vec<ir::Budget>,
    budget_names: Vec<(String, Span)>,
    redact: Option<Vec<String>>,
    snapshots: Option<ir::Snapshots>,
    client: Option<ir::ClientBehavior>,
    functions: Option<Vec<String>>,
    /// `Extensions:` settings other than the functions (kept in `functions`).
    extensions: Option<ir::Extensions>,
}

/// Lowers the entry document (with the imported files' flows) to a suite.
pub fn lower(
    l: &mut Lower<'_>,
    doc: &Document,
    imported: &[(usize, &Document)],
    threads: usize,
) -> Option<Suite> {
    let entry = l.entry;
    let mut settings = Settings {
        name: None,
        target: None,
        target_from_command_line: false,
        servers: OrderedMap::new(),
        servers_at: Vec::new(),
        targets: OrderedMap::new(),
        targets_at: Vec::new(),
        defaults: None,
        budgets: Vec::new(),
        budget_names: Vec::new(),
        redact: None,
        snapshots: None,
        client: None,
        functions: None,
        extensions: None,
    };
    for node in &doc.nodes {
        document_setting(l, &mut settings, node);
    }
    for (kind, at) in [
        ("named server", &settings.servers_at),
        ("compare target", &settings.targets_at),
    ] {
        if at.len() == 1 {
            l.report(Problem::SingleTarget { kind }, at[0].0, at[0].1);
        }
    }

    let flows = Flows::collect(l, doc, imported);
    let sources = data::sources(l, doc);

    let test_nodes: Vec<(&Node, &Text)> = doc
        .nodes
        .iter()
        .filter_map(|node| match &node.stmt {
            Stmt::TestHeader { name } => Some((node, name)),
            _ => None,
        })
        .collect();
    let mut tests = lower_tests(l, &settings, &flows, &sources, &test_nodes, threads);
    let has_flows = doc
        .nodes
        .iter()
        .any(|n| matches!(n.stmt, Stmt::FlowHeader { .. }));
    if !tests.is_empty() {
        flows.report_unused(l);
    }
    deps::check(l, &mut tests);
    for (name, span) in &settings.budget_names {
        let known = tests.iter().any(|t| {
            t.test.name == *name
                || (t.test.for_each.is_some() && name.starts_with(&format!("{} [", t.test.name)))
        });
        if !known {
            let suggestion = closest(name, tests.iter().map(|t| t.test.name.as_str()));
            l.report(
                Problem::UnknownBudgetTest {
                    name: name.clone(),
                    suggestion,
                    surface: l.surface,
                },
                entry,
                *span,
            );
        }
    }

    if tests.is_empty() {
        if !has_flows {
            let span = doc.nodes.first().map_or(Span::at(0), |n| n.span);
            l.report(Problem::NoTests, entry, span);
        }
        return None;
    }
    let tests: Vec<Test> = tests.into_iter().map(|t| t.test).collect();
    let mut suite = match settings.target.take() {
        // The server comes from `mcpr run --server/--url/--profile` (a named server declared
        // after the line is no default either).
        _ if settings.target_from_command_line => Suite::without_target(tests),
        Some((target, _)) => Suite::new(target, tests),
        None => {
            if let Some((_, name)) = test_nodes.first() {
                l.report(Problem::NoTarget, entry, name.span);
            }
            return None;
        }
    };
    suite.name = settings.name;
    suite.targets = (!settings.targets.is_empty()).then_some(settings.targets);
    suite.servers = (!settings.servers.is_empty()).then_some(settings.servers);
    suite.defaults = settings.defaults;
    suite.budgets = (!settings.budgets.is_empty()).then_some(settings.budgets);
    suite.redact = settings.redact;
    suite.snapshots = settings.snapshots;
    suite.client = settings.client;
    suite.extensions = match (settings.functions, settings.extensions) {
        (None, None) => None,
        (functions, other) => Some(ir::Extensions {
            functions,
            ..other.unwrap_or_default()
        }),
    };
    suite.data_sources = (!sources.is_empty()).then(|| {
        sources
            .iter()
            .map(|(k, s)| (k.to_string(), s.clone()))
            .collect()
    });
    Some(suite)
}

/// Lowers every test, on `threads` threads for a large file: the tests are cut into runs of
/// neighbours, each run lowered with its own diagnostics list, and the lists joined in
/// order, so the result is the same for every `threads`.
fn lower_tests(
    l: &mut Lower<'_>,
    settings: &Settings,
    flows: &Flows<'_>,
    sources: &OrderedMap<ir::DataSource>,
    nodes: &[(&Node, &Text)],
    threads: usize,
) -> Vec<BuiltTest> {
    let run = |l: &mut Lower<'_>, part: &[(&Node, &Text)]| -> Vec<BuiltTest> {
        part.iter()
            .map(|(node, name)| test(l, settings, flows, sources, node, name))
            .collect()
    };
    if threads < 2 || nodes.len() < 2 {
        return run(l, nodes);
    }
    let per = nodes.len().div_ceil(threads);
    let (map, entry, options, surface) = (l.map, l.entry, l.options, l.surface);
    // Each run lowers into a context of its own: same file and settings, own diagnostics.
    let own = move || Lower {
        map,
        entry,
        options,
        diags: Vec::new(),
        surface,
    };
    let parts: Vec<(Vec<BuiltTest>, Vec<crate::diagnostics::Diagnostic>)> =
        std::thread::scope(|scope| {
            let mut chunks = nodes.chunks(per);
            let first = chunks.next().unwrap_or_default();
            let handles: Vec<_> = chunks
                .map(|part| {
                    scope.spawn(move || {
                        let mut l = own();
                        let built = run(&mut l, part);
                        (built, l.diags)
                    })
                })
                .collect();
            let mut l = own();
            let mut parts = vec![(run(&mut l, first), l.diags)];
            for h in handles {
                parts.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            parts
        });
    let mut tests = Vec::with_capacity(nodes.len());
    for (built, diags) in parts {
        tests.extend(built);
        l.diags.extend(diags);
    }
    tests
}

/// Pushes `item` unless it is already there.
fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A target from a `Named server` / `Compare target` connection text.
fn connection(text: &str) -> Target {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let unq = values::split_command(t);
    if lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("\"http")
        || lower.starts_with("'http")
    {
        Target::http(unq.into_iter().next().unwrap_or_default())
    } else {
        command_target(t)
    }
}

fn command_target(text: &str) -> Target {
    let mut words = values::split_command(text).into_iter();
    let command = words.next().unwrap_or_default();
    Target::stdio(command, words.collect())
}

fn document_setting(l: &mut Lower<'_>, s: &mut Settings, node: &Node) {
    let file = l.entry;
    match &node.stmt {
        Stmt::Suite { name } => s.name = Some(name.value.clone()),
        Stmt::Server { command } if !command.value.trim().is_empty() => {
            s.target = Some((command_target(&command.value), Link::None));
            s.target_from_command_line = false;
        }
        Stmt::McpUrl { url } => {
            s.target = Some((Target::http(url.value.trim()), Link::None));
            s.target_from_command_line = false;
        }
        Stmt::ServerFromCommandLine => {
            s.target = None;
            s.target_from_command_line = true;
        }
        Stmt::NamedServer {
            name,
            connection: c,
        } => {
            s.servers.insert(name.value.clone(), connection(&c.value));
            s.servers_at.push((file, name.span));
            if s.target.is_none() {
                s.target = Some((connection(&c.value), Link::Server(name.value.clone())));
            }
        }
        Stmt::CompareTarget {
            name,
            connection: c,
        } => {
            s.targets.insert(name.value.clone(), connection(&c.value));
            s.targets_at.push((file, name.span));
            if s.target.is_none() {
                s.target = Some((connection(&c.value), Link::Compare(name.value.clone())));
            }
        }
        Stmt::ServerOptions => {
            let Some(block) = block_map(node) else { return };
            let Some((target, link)) = s.target.as_mut() else {
                l.report(Problem::OptionsBeforeTarget, file, node.span);
                return;
            };
            apply_options(l, target, &block, node);
            let linked = match link.clone() {
                Link::None => None,
                Link::Server(n) => s.servers.get_mut(&n),
                Link::Compare(n) => s.targets.get_mut(&n),
            };
            if let Some(t) = linked {
                *t = target.clone();
            }
        }
        Stmt::ServerOptionsFor { name } | Stmt::TargetOptionsFor { name } => {
            let servers = matches!(node.stmt, Stmt::ServerOptionsFor { .. });
            let Some(block) = block_map(node) else { return };
            let map = if servers {
                &mut s.servers
            } else {
                &mut s.targets
            };
            let known: Vec<String> = map.keys().map(str::to_string).collect();
            let Some(entry) = map.get_mut(&name.value) else {
                let kind = if servers {
                    "named server"
                } else {
                    "compare target"
                };
                l.report(
                    Problem::OptionsForUndeclared {
                        kind,
                        name: name.value.clone(),
                        known,
                    },
                    file,
                    name.span,
                );
                return;
            };
            apply_options(l, entry, &block, node);
            let updated = entry.clone();
            if let Some((t, link)) = s.target.as_mut() {
                let same = match link {
                    Link::Server(n) => servers && *n == name.value,
                    Link::Compare(n) => !servers && *n == name.value,
                    Link::None => false,
                };
                if same {
                    *t = updated;
                }
            }
        }
        Stmt::DefaultTimeout { duration } => {
            if let Some(ms) = duration.ms {
                s.defaults = Some(ir::Defaults {
                    timeout_ms: Some(ms),
                });
            }
        }
        Stmt::Budget(b) => {
            let (Some(p), Some(max)) = (b.percentile.value, b.max.ms) else {
                return;
            };
            if let Some(t) = &b.test {
                s.budget_names.push((t.value.clone(), t.span));
            }
            s.budgets.push(ir::Budget {
                test: b.test.as_ref().map_or("*".into(), |t| t.value.clone()),
                percentile: p.clamp(0, u32::MAX as i64) as u32,
                max_ms: max,
                window: b
                    .window
                    .as_ref()
                    .and_then(|w| w.value)
                    .map(|w| w.clamp(0, u32::MAX as i64) as u32),
            });
        }
        Stmt::Redact { items } => {
            let list = s.redact.get_or_insert_with(Vec::new);
            for i in items.iter().filter(|i| !i.value.is_empty()) {
                push_unique(list, i.value.clone());
            }
        }
        Stmt::Snapshots { file: f } => {
            s.snapshots.get_or_insert_with(Default::default).file = Some(f.value.clone());
        }
        Stmt::IgnoreSnapshotPaths { paths } => {
            let snap = s.snapshots.get_or_insert_with(Default::default);
            let list = snap.ignore.get_or_insert_with(Vec::new);
            for p in paths {
                if let Some(path) = l.path(file, p) {
                    push_unique(list, path);
                }
            }
        }
        Stmt::ClientBehavior => {
            let Some(block) = block_map(node) else { return };
            match serde_json::from_value::<ir::ClientBehavior>(Value::Object(block)) {
                // A later block sets again what it names and keeps the rest.
                Ok(b) => s.client.get_or_insert_with(Default::default).merge(b),
                Err(e) => {
                    let at = block_first_line(l, file, node);
                    l.report(
                        Problem::BadClientBehavior {
                            reason: e.to_string(),
                        },
                        file,
                        at,
                    );
                }
            }
        }
        Stmt::Extensions => {
            let Some(block) = block_map(node) else { return };
            match serde_json::from_value::<ir::Extensions>(Value::Object(block)) {
                Ok(ext) => {
                    // `Functions:` lines and `functions:` here add to one list.
                    if let Some(f) = &ext.functions {
                        let list = s.functions.get_or_insert_with(Vec::new);
                        for p in f {
                            push_unique(list, p.clone());
                        }
                    }
                    let e = s.extensions.get_or_insert_with(Default::default);
                    if ext.permissions.is_some() {
                        e.permissions = ext.permissions;
                    }
                    if ext.allowlist.is_some() {
                        e.allowlist = ext.allowlist;
                    }
                    if ext.unsafe_legacy.is_some() {
                        e.unsafe_legacy = ext.unsafe_legacy;
                    }
                }
                Err(e) => {
                    let at = block_first_line(l, file, node);
                    l.report(
                        Problem::BadExtensions {
                            reason: e.to_string(),
                        },
                        file,
                        at,
                    );
                }
            }
        }
        Stmt::Functions { paths } => {
            let list = s.functions.get_or_insert_with(Vec::new);
            for p in paths.iter().filter(|p| !p.value.is_empty()) {
                push_unique(list, p.value.clone());
            }
        }
        _ => {}
    }
}

/// The YAML block of a node when it is a mapping (anything else was reported by the parser).
pub fn block_map(node: &Node) -> Option<Map<String, Value>> {
    block_ref(node).cloned()
}

/// The node's YAML block when it is a mapping, borrowed.
pub fn block_ref(node: &Node) -> Option<&Map<String, Value>> {
    match node.yaml.as_ref()?.value.as_ref()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// A scalar option value as text.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_map(v: &Value) -> Result<OrderedMap<String>, String> {
    let Value::Object(m) = v else {
        return Err("must hold `name: value` lines".into());
    };
    let mut out = OrderedMap::new();
    for (k, v) in m {
        let Some(t) = scalar_text(v) else {
            return Err(format!("has a value for `{k}` that is not text"));
        };
        out.insert(k.clone(), t);
    }
    Ok(out)
}

fn oauth(v: &Value) -> Result<OAuth, String> {
    match v {
        Value::Bool(true) => Ok(OAuth::Enabled(true)),
        Value::Object(m) => {
            let mut s = OAuthSettings::default();
            for (k, v) in m {
                match k.as_str() {
                    "clientId" | "client id" | "client_id" => s.client_id = scalar_text(v),
                    "clientSecret" | "client secret" | "client_secret" => {
                        s.client_secret = scalar_text(v)
                    }
                    "scope" | "scopes" => {
                        s.scope = match v {
                            Value::Array(items) => Some(
                                items
                                    .iter()
                                    .filter_map(scalar_text)
                                    .collect::<Vec<_>>()
                                    .join(" "),
                            ),
                            other => scalar_text(other),
                        }
                    }
                    other => return Err(format!("has an unknown setting `{other}`")),
                }
            }
            Ok(OAuth::Settings(s))
        }
        _ => Err("must be `true` or a block with clientId, clientSecret and scope".into()),
    }
}

/// Applies a `Server options` block to one target; every key must fit its transport.
fn apply_options(l: &mut Lower<'_>, target: &mut Target, block: &Map<String, Value>, node: &Node) {
    let file = l.entry;
    for (key, value) in block {
        let at = l.key_span(file, node, key);
        let result: Result<(), String> = match target {
            Target::Stdio(t) => match key.as_str() {
                "cwd" => scalar_text(value)
                    .map(|c| t.cwd = Some(c))
                    .ok_or_else(|| "must be a folder path".to_string()),
                "env" => string_map(value).map(|m| t.env = Some(m)),
                "headers" | "Token from" | "token from" | "tokenFrom" | "OAuth" | "oauth"
                | "Auth" | "auth" | "transport" => {
                    Err("applies to HTTP servers, not to a server started as a command".into())
                }
                _ => Err("is not a server option".into()),
            },
            Target::StreamableHttp(_) | Target::Sse(_) if key == "transport" => {
                match value.as_str() {
                    Some("sse") => {
                        if let Target::StreamableHttp(h) = target {
                            *target = Target::Sse(h.clone());
                        }
                        Ok(())
                    }
                    Some("streamable-http") => {
                        if let Target::Sse(h) = target {
                            *target = Target::StreamableHttp(h.clone());
                        }
                        Ok(())
                    }
                    _ => Err("must be `streamable-http` or `sse`".into()),
                }
            }
            Target::StreamableHttp(t) | Target::Sse(t) => http_option(t, key, value),
        };
        if let Err(reason) = result {
            l.report(
                Problem::BadServerOption {
                    key: key.clone(),
                    reason,
                },
                file,
                at,
            );
        }
    }
}

fn http_option(t: &mut HttpTarget, key: &str, value: &Value) -> Result<(), String> {
    match key {
        "headers" => string_map(value).map(|m| t.headers = Some(m)),
        "Token from" | "token from" | "tokenFrom" => scalar_text(value)
            .map(|c| t.token_from = Some(c))
            .ok_or_else(|| "must be a command".to_string()),
        "OAuth" | "oauth" | "Auth" | "auth" => oauth(value).map(|o| t.oauth = Some(o)),
        "cwd" | "env" => Err("applies to servers started as a command, not to HTTP servers".into()),
        _ => Err("is not a server option".into()),
    }
}

/// Builder state while a test body (and the flows it calls) is walked.
pub struct TestBuilder {
    /// Steps so far.
    pub steps: Vec<Step>,
    /// Index of the step expectations attach to.
    pub current: Option<usize>,
    /// Phase of the next step.
    pub phase: Phase,
    /// Initial variables (explicit ones and flow inputs).
    pub variables: Map<String, Value>,
    /// Next flow prefix number.
    pub next_prefix: usize,
    /// `${deps.…}` references seen.
    pub deps_refs: Vec<(String, usize, Span)>,
    /// Saves and sets written in the test itself: variable, span, step index.
    pub saves: Vec<(String, Span, usize)>,
    /// Exports written in the entry file.
    pub exports: Vec<(String, Span)>,
}

fn test(
    l: &mut Lower<'_>,
    settings: &Settings,
    flows: &Flows<'_>,
    sources: &OrderedMap<ir::DataSource>,
    header: &Node,
    name: &Text,
) -> BuiltTest {
    let file = l.entry;
    let mut t = Test::new(name.value.clone(), Vec::new());
    let mut b = TestBuilder {
        steps: Vec::new(),
        current: None,
        phase: Phase::Test,
        variables: Map::new(),
        next_prefix: 0,
        deps_refs: Vec::new(),
        saves: Vec::new(),
        exports: Vec::new(),
    };
    let mut explicit_id = None;
    let mut depends = Vec::new();
    let mut declared_vars: Vec<(String, Span)> = Vec::new();
    // Only the first data iteration counts (a second one is MCPLANG215).
    let first_iteration = header
        .children
        .iter()
        .position(|n| n.decl_kind() == crate::syntax::DeclKind::Iteration);
    // Properties first: they are position-free.
    for (at, node) in header.children.iter().enumerate() {
        if node.decl_kind() == crate::syntax::DeclKind::Iteration && Some(at) != first_iteration {
            continue;
        }
        match &node.stmt {
            Stmt::Id { id } => explicit_id = Some(id.clone()),
            Stmt::OnServer { name: server } => {
                if settings.servers.contains_key(&server.value) {
                    t.server = Some(server.value.clone());
                } else {
                    l.report(
                        Problem::UnknownServer {
                            name: server.value.clone(),
                            known: settings.servers.keys().map(str::to_string).collect(),
                            surface: l.surface,
                        },
                        file,
                        server.span,
                    );
                }
            }
            Stmt::Skip { reason } => {
                t.skip = Some(match reason {
                    Some(r) if !r.value.trim().is_empty() => ir::Skip::Reason(r.value.clone()),
                    _ => ir::Skip::Flag(true),
                })
            }
            Stmt::ContinueOnFailure => t.continue_on_failure = Some(true),
            Stmt::LogicalName { name } => t.logical_name = Some(name.value.clone()),
            Stmt::DataRow => t.data = block_map(node),
            Stmt::Variables => {
                if let Some(block) = block_map(node) {
                    for (k, v) in block {
                        declared_vars.push((k.clone(), l.key_span(file, node, &k)));
                        b.variables.insert(k, v);
                    }
                }
            }
            Stmt::Require { capabilities } => {
                let req = t.requires.get_or_insert_with(Default::default);
                let list = req.capabilities.get_or_insert_with(Vec::new);
                for c in capabilities.iter().filter(|c| !c.value.is_empty()) {
                    push_unique(list, c.value.clone());
                }
            }
            Stmt::RequireProtocol { versions } => {
                let req = t.requires.get_or_insert_with(Default::default);
                let list = req.protocol_versions.get_or_insert_with(Vec::new);
                for v in versions.iter().filter(|v| !v.value.is_empty()) {
                    push_unique(list, v.value.clone());
                }
            }
            Stmt::DependsOn { ids } => {
                let list = t.depends_on.get_or_insert_with(Vec::new);
                for i in ids.iter().filter(|i| !i.value.is_empty()) {
                    push_unique(list, i.value.clone());
                    depends.push((i.value.clone(), i.span));
                }
            }
            Stmt::ForEachRow => {
                if let Some(table) = &node.table {
                    t.for_each = data::inline_rows(table);
                } else if let Some(Value::Array(rows)) =
                    node.yaml.as_ref().and_then(|y| y.value.as_ref())
                {
                    // Rows written as a YAML list (checked to be mappings by the parser).
                    let rows = rows.iter().filter_map(|r| r.as_object().cloned()).collect();
                    t.for_each = Some(ir::ForEach::Rows(ir::ForEachRows { rows }));
                }
            }
            Stmt::ForEachRowIn { file: f, sheet } => {
                t.for_each = Some(ir::ForEach::File(ir::ForEachFile {
                    file: f.value.clone(),
                    sheet: sheet.as_ref().map(|s| s.value.clone()),
                }));
            }
            Stmt::ForEachRowFrom { source } => {
                if sources.contains_key(&source.value) {
                    t.for_each = Some(ir::ForEach::Source(ir::ForEachSource {
                        source: source.value.clone(),
                    }));
                } else {
                    l.report(
                        Problem::UnknownDataSource {
                            name: source.value.clone(),
                            suggestion: closest(&source.value, sources.keys()),
                            surface: l.surface,
                        },
                        file,
                        source.span,
                    );
                }
            }
            _ => {}
        }
    }
    let functions_declared = settings.functions.is_some();
    let scope = Scope::top(file);
    body(
        l,
        flows,
        &mut b,
        &header.children,
        &scope,
        functions_declared,
    );

    // Unread variables (warnings) for what the test itself declares.
    let mut read: Vec<(usize, &str)> = Vec::new();
    let wanted = !declared_vars.is_empty() || !b.saves.is_empty();
    for (i, step) in b.steps.iter().enumerate().filter(|_| wanted) {
        step_refs(step, &mut |r| read.push((i, r)));
    }
    for v in b.variables.values() {
        values::each_ref(v, &mut |r| read.push((usize::MAX, r)));
    }
    for (name, span) in &declared_vars {
        // Dotted names are the inputs of expanded flow calls (`flow0.a`, as the printer
        // writes them out); an input the flow never reads is the flow's business, not a
        // mistake in this test.
        if !name.contains('.') && !read.iter().any(|(_, r)| values::names(r, name)) {
            l.report(Problem::UnreadVariable { name: name.clone() }, file, *span);
        }
    }
    for (name, span, at) in &b.saves {
        let used = read
            .iter()
            .any(|(i, r)| values::head(r) == name && *i > *at);
        if !used {
            l.report(
                Problem::UnreadSavedVariable { name: name.clone() },
                file,
                *span,
            );
        }
    }

    // Every reference written in the test must name something the test declares.
    let mut known: BTreeSet<&str> = declared_vars.iter().map(|(n, _)| n.as_str()).collect();
    known.extend(["env", "deps", "state"]);
    if first_iteration.is_some() {
        known.insert("row");
    }
    for node in &header.children {
        if let Stmt::Save { variable, .. } | Stmt::SetUsing { variable, .. } = &node.stmt {
            known.insert(variable.value.as_str());
        }
    }
    for step in &b.steps {
        if let Some(c) = &step.capture {
            known.extend(c.keys());
        }
        match &step.kind {
            StepKind::Set(s) => {
                known.insert(s.variable.as_str());
            }
            // `Run step with:` native actions that set a variable (`prompt`, `save-text`).
            StepKind::Native(n) => {
                if let Some(v) = n.variable() {
                    known.insert(v);
                }
            }
            _ => {}
        }
    }
    // A name saved only by a line of the test itself has no value before that line; names a
    // flow saves are left to the flow's own order.
    let mut first_save: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
    let always: BTreeSet<&str> = declared_vars
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(
            b.steps
                .iter()
                .filter(|s| !s.flow.is_empty())
                .flat_map(|s| s.capture.iter().flat_map(|c| c.keys())),
        )
        .collect();
    for (i, node) in header.children.iter().enumerate() {
        match &node.stmt {
            Stmt::Save { variable, .. } | Stmt::SetUsing { variable, .. }
                if !always.contains(variable.value.as_str()) =>
            {
                first_save
                    .entry(variable.value.as_str())
                    .or_insert((i, variable.span));
            }
            // A `Run step with:` block saves what its `capture` and `set.variable` name.
            Stmt::RunStep => {
                let block = node.yaml.as_ref().and_then(|y| y.value.as_ref());
                let captured = block
                    .and_then(|v| v.get("capture"))
                    .and_then(Value::as_object)
                    .into_iter()
                    .flat_map(|c| c.keys().map(String::as_str));
                let set = block
                    .and_then(|v| v.pointer("/set/variable"))
                    .and_then(Value::as_str);
                for name in captured.chain(set) {
                    first_save.entry(name).or_insert((i, node.span));
                }
            }
            _ => {}
        }
    }
    for (i, node) in header.children.iter().enumerate() {
        if matches!(node.stmt, Stmt::Comment | Stmt::Error) {
            continue;
        }
        for (inner, span) in node_refs(l.map, node, file) {
            let head = values::head(inner);
            // `Variables:` values are templates read when the variable is used, not at the
            // top of the test (an expanded flow's inputs live there).
            if let Some(&(at, saved)) = first_save.get(head)
                && at >= i
                && node.stmt != Stmt::Variables
            {
                l.report(
                    Problem::VariableSavedLater {
                        name: head.to_string(),
                        line: l.map.get(file).line_index(saved.start as usize) + 1,
                    },
                    file,
                    span,
                );
                continue;
            }
            if values::incomplete_namespace_ref(inner) {
                l.report(
                    Problem::IncompleteReference {
                        reference: inner.to_string(),
                    },
                    file,
                    span,
                );
                continue;
            }
            // A declared name may itself hold dots (`flow0.a`, written out by the printer
            // for an expanded flow's inputs); the runtime resolves the longest such prefix.
            let dotted = declared_vars.iter().any(|(n, _)| values::names(inner, n));
            if !known.contains(head) && !dotted {
                let suggestion = closest(head, known.iter().copied());
                l.report(
                    Problem::UnknownVariable {
                        reference: inner.to_string(),
                        flow: None,
                        suggestion,
                        surface: l.surface,
                    },
                    file,
                    span,
                );
            }
        }
    }

    let (id, id_span, explicit) = match &explicit_id {
        Some(id) => (id.value.clone(), id.span, true),
        None => (crate::names::slug(&name.value), name.span, false),
    };
    t.id = Some(id);
    if t.for_each.is_some() && t.logical_name.is_none() {
        t.logical_name = Some(name.value.clone());
    }
    t.variables = (!b.variables.is_empty()).then_some(b.variables);
    t.steps = b.steps;
    BuiltTest {
        test: t,
        explicit_id: explicit,
        id_span,
        depends,
        deps_refs: b.deps_refs,
        exports: b.exports,
    }
}

/// Every reference in the templates of a step (what it sends and what it expects).
pub fn step_refs<'s>(step: &'s Step, f: &mut dyn FnMut(&'s str)) {
    match &step.kind {
        StepKind::Tool(t) => {
            values::refs(&t.name).for_each(|(_, r)| f(r));
            if let Some(a) = &t.arguments {
                a.values().for_each(|v| values::each_ref(v, f));
            }
        }
        StepKind::Request(r) => {
            if let Some(p) = &r.params {
                values::each_ref(p, f);
            }
        }
        StepKind::Set(s) => {
            if let Some(a) = &s.arguments {
                a.values().for_each(|v| values::each_ref(v, f));
            }
        }
        StepKind::Native(n) => {
            for s in [n.uri(), n.task_id()].into_iter().flatten() {
                values::refs(s).for_each(|(_, r)| f(r));
            }
            if let Some(p) = n.params() {
                values::each_ref(p, f);
            }
            if let Some(b) = n.behavior() {
                b.each_string(&mut |s| values::refs(s).for_each(|(_, r)| f(r)));
            }
        }
    }
    let Some(a) = &step.assert else { return };
    if let Some(e) = &a.error {
        for s in [&e.message, &e.matches].into_iter().flatten() {
            values::refs(s).for_each(|(_, r)| f(r));
        }
    }
    for x in a.json.as_ref().map_or(&[][..], |j| j.as_slice()) {
        for v in [&x.equals, &x.not_equals, &x.contains]
            .into_iter()
            .flatten()
        {
            values::each_ref(v, f);
        }
        if let Some(m) = &x.matches {
            values::refs(m).for_each(|(_, r)| f(r));
        }
        if let Some(schema) = &x.schema {
            schema.values().for_each(|v| values::each_ref(v, f));
        }
        if let Some(snap) = &x.snapshot {
            values::refs(&snap.name).for_each(|(_, r)| f(r));
        }
    }
}

/// The step name for quoted subjects: `Call tool “add”`.
fn named(verb: &str, subject: &str) -> String {
    let mut s = String::with_capacity(verb.len() + subject.len() + 7);
    s.push_str(verb);
    s.push_str(" \u{201c}");
    s.push_str(subject);
    s.push('\u{201d}');
    s
}

/// Walks a test or flow body, appending steps.
pub fn body<'f>(
    l: &mut Lower<'_>,
    flows: &'f Flows<'_>,
    b: &mut TestBuilder,
    nodes: &[Node],
    scope: &Scope<'f>,
    functions_declared: bool,
) {
    let file = scope.file;
    for node in nodes {
        collect_deps_refs(l, b, node, file);
        let phase = b.phase;
        let cleanup = phase == Phase::Cleanup;
        let block = || block_map(node).map(|m| scope.rename_map(m));
        let mut step: Option<(StepKind, String, Option<bool>)> = None;
        match &node.stmt {
            Stmt::Setup => {
                b.phase = Phase::Setup;
                b.current = None;
            }
            Stmt::Steps => {
                b.phase = Phase::Test;
                b.current = None;
            }
            Stmt::Cleanup => {
                b.phase = Phase::Cleanup;
                b.current = None;
            }
            Stmt::CallTool { name, .. } => {
                step = Some((
                    StepKind::Tool(ToolStep {
                        arguments: block(),
                        ..ToolStep::new(scope.rename_str(&name.value))
                    }),
                    named("Call tool", &name.value),
                    Some(cleanup),
                ));
            }
            Stmt::CallToolWithProgress {
                name, cancel_after, ..
            } => {
                let n = NativeStep::Request(ir::RequestAction {
                    method: Some("tools/call".into()),
                    params: Some(json!({
                        "name": scope.rename_str(&name.value),
                        "arguments": Value::Object(block().unwrap_or_default()),
                    })),
                    progress: Some(true),
                    cancel_after_ms: cancel_after.as_ref().and_then(|d| d.ms),
                    timeout_ms: None,
                });
                step = Some((
                    StepKind::native(n),
                    format!("{} with progress", named("Call tool", &name.value)),
                    None,
                ));
            }
            Stmt::ReadResource { uri } => {
                step = Some((
                    StepKind::Request(RequestStep {
                        method: "resources/read".into(),
                        params: Some(json!({ "uri": scope.rename_str(&uri.value) })),
                    }),
                    named("Read resource", &uri.value),
                    Some(cleanup),
                ));
            }
            Stmt::GetPrompt { name, .. } => {
                step = Some((
                    StepKind::Request(RequestStep {
                        method: "prompts/get".into(),
                        params: Some(json!({
                            "name": scope.rename_str(&name.value),
                            "arguments": Value::Object(block().unwrap_or_default()),
                        })),
                    }),
                    named("Get prompt", &name.value),
                    Some(cleanup),
                ));
            }
            Stmt::Send { method, .. } => {
                step = Some((
                    StepKind::Request(RequestStep {
                        method: method.value.clone(),
                        params: block().map(Value::Object),
                    }),
                    format!("Send {}", method.value),
                    Some(cleanup),
                ));
            }
            Stmt::Subscribe { uri } | Stmt::Unsubscribe { uri } => {
                let sub = matches!(node.stmt, Stmt::Subscribe { .. });
                let members = ir::ResourceAction {
                    uri: Some(scope.rename_str(&uri.value)),
                    timeout_ms: None,
                };
                let n = if sub {
                    NativeStep::Subscribe(members)
                } else {
                    NativeStep::Unsubscribe(members)
                };
                step = Some(if sub {
                    (StepKind::native(n), named("Subscribe to", &uri.value), None)
                } else {
                    (
                        StepKind::native(n),
                        named("Unsubscribe from", &uri.value),
                        Some(cleanup),
                    )
                });
            }
            Stmt::WaitForNotification { method, within } => {
                let n = NativeStep::AwaitNotification(ir::AwaitNotificationAction {
                    method: Some(method.value.clone()),
                    params: None,
                    timeout_ms: Some(within.as_ref().and_then(|d| d.ms).unwrap_or(5000)),
                });
                step = Some((
                    StepKind::native(n),
                    named("Wait for notification", &method.value),
                    Some(cleanup),
                ));
            }
            Stmt::SetLogLevel { level } => {
                let n = NativeStep::SetLogLevel(ir::LogLevelAction {
                    level: Some(level.value.clone()),
                    timeout_ms: None,
                });
                step = Some((
                    StepKind::native(n),
                    format!("Set log level to {}", level.value),
                    None,
                ));
            }
            Stmt::ListAll { what } => {
                let (method, field, noun) = match what {
                    ListKind::Tools => ("tools/list", "tools", "tools"),
                    ListKind::Resources => ("resources/list", "resources", "resources"),
                    ListKind::Prompts => ("prompts/list", "prompts", "prompts"),
                    ListKind::ResourceTemplates => (
                        "resources/templates/list",
                        "resourceTemplates",
                        "resource templates",
                    ),
                };
                let n = NativeStep::ListAll(ir::ListAllAction {
                    method: Some(method.into()),
                    params: None,
                    field: Some(field.into()),
                    timeout_ms: None,
                });
                step = Some((StepKind::native(n), format!("List all {noun}"), None));
            }
            Stmt::GetTask { task } | Stmt::CancelTask { task } => {
                let get = matches!(node.stmt, Stmt::GetTask { .. });
                let members = ir::TaskAction {
                    params: None,
                    task_id: Some(scope.rename_str(&task.value)),
                    timeout_ms: None,
                };
                let n = if get {
                    NativeStep::TaskGet(members)
                } else {
                    NativeStep::TaskCancel(members)
                };
                let verb = if get { "Get task" } else { "Cancel task" };
                step = Some((StepKind::native(n), named(verb, &task.value), None));
            }
            Stmt::ListTasks => {
                step = Some((
                    StepKind::native(NativeStep::new(NativeAction::TaskList)),
                    "List tasks".into(),
                    None,
                ));
            }
            Stmt::RespondToElicitation { action, .. } => {
                let a = action.value.to_ascii_lowercase();
                let answer = ir::ScriptedElicitation {
                    action: Some(a.clone()),
                    content: block().map(Value::Object),
                };
                let n = configure_client(ir::ClientBehavior {
                    elicitation: Some(ir::ElicitationAnswer::Scripted(answer)),
                    ..Default::default()
                });
                step = Some((
                    StepKind::native(n),
                    format!("Respond to elicitation with {a}"),
                    None,
                ));
            }
            Stmt::RespondToSampling { text } => {
                let answer = ir::ScriptedSampling {
                    model: Some("mcprigor-scripted".into()),
                    text: Some(scope.rename_str(&text.value)),
                    response: None,
                };
                let n = configure_client(ir::ClientBehavior {
                    sampling: Some(ir::SamplingAnswer::Scripted(answer)),
                    ..Default::default()
                });
                step = Some((
                    StepKind::native(n),
                    "Respond to sampling with a scripted message".into(),
                    None,
                ));
            }
            Stmt::SetUsing {
                variable, function, ..
            } => {
                if !functions_declared && !BUILT_IN_FUNCTIONS.contains(&function.value.as_str()) {
                    l.report(
                        Problem::UnknownFunction {
                            name: function.value.clone(),
                            suggestion: closest(
                                &function.value,
                                BUILT_IN_FUNCTIONS.iter().copied(),
                            ),
                            surface: l.surface,
                        },
                        file,
                        function.span,
                    );
                }
                let mut s = Step::new(StepKind::Set(SetStep {
                    variable: variable.value.clone(),
                    function: function.value.clone(),
                    arguments: block(),
                }));
                s.name = Some(format!(
                    "{} using {}",
                    named("Set", &variable.value),
                    function.value
                ));
                s.phase = Some(phase);
                s.always = Some(cleanup);
                s.source = Some(l.location(file, node.span));
                s.flow = scope.frames.clone();
                if scope.frames.is_empty() && file == l.entry {
                    b.saves
                        .push((variable.value.clone(), variable.span, b.steps.len()));
                }
                b.steps.push(s);
                b.current = None;
            }
            Stmt::UseFlow { name, .. } => {
                flows::expand(l, flows, b, node, name, scope, functions_declared);
            }
            Stmt::RunStep => {
                // Invalid YAML or a block that is no mapping was reported by the parser.
                if let Some(block) = block() {
                    match run_step(block, phase) {
                        Ok(mut s) => {
                            s.source = Some(l.location(file, node.span));
                            s.flow = scope.frames.clone();
                            if let StepKind::Set(set) = &s.kind
                                && scope.frames.is_empty()
                                && file == l.entry
                            {
                                b.saves
                                    .push((set.variable.clone(), node.span, b.steps.len()));
                            }
                            b.current = Some(b.steps.len());
                            b.steps.push(s);
                        }
                        Err(reason) => {
                            let at = block_first_line(l, file, node);
                            l.report(Problem::BadStepSettings { reason }, file, at);
                            b.current = None;
                        }
                    }
                }
            }
            // Expectations and modifiers attach to the current step.
            _ if node.stmt.decl_kind() == crate::syntax::DeclKind::Expectation
                || node.stmt.decl_kind() == crate::syntax::DeclKind::Modifier =>
            {
                if let Some(i) = b.current {
                    attach(l, b, i, node, scope);
                }
            }
            _ => {}
        }
        if let Some((kind, name, always)) = step {
            let mut s = Step::new(kind);
            s.name = Some(name);
            s.phase = Some(phase);
            s.always = always;
            s.source = Some(l.location(file, node.span));
            s.flow = scope.frames.clone();
            b.current = Some(b.steps.len());
            b.steps.push(s);
        }
    }
}

/// The step of a `Run step with:` block: the suite model's step, in the current section's
/// phase unless the block names one (`phase: null` leaves it unset).
fn run_step(block: Map<String, Value>, phase: Phase) -> Result<Step, String> {
    for reserved in ["source", "flow"] {
        if block.contains_key(reserved) {
            return Err(format!(
                "`{reserved}` is written by mcpr itself and cannot be set"
            ));
        }
    }
    let phase_given = block.contains_key("phase");
    let mut step: Step = serde_json::from_value(Value::Object(block)).map_err(|e| e.to_string())?;
    if !phase_given {
        step.phase = Some(phase);
    }
    Ok(step)
}

/// A `configure-client` step setting `behavior`.
fn configure_client(behavior: ir::ClientBehavior) -> NativeStep {
    NativeStep::ConfigureClient(ir::ConfigureClientAction {
        behavior: Some(behavior),
        timeout_ms: None,
    })
}

/// The span of the first line of a node's YAML block (the node's line when it has none).
pub fn block_first_line(l: &Lower<'_>, file: usize, node: &Node) -> Span {
    let Some(y) = &node.yaml else {
        return node.span;
    };
    let text = &l.map.get(file).text()[y.span.range()];
    let lead = text.len() - text.trim_start().len();
    let start = y.span.start as usize + lead;
    let first = text.trim_start();
    let end = start + first.find('\n').unwrap_or(first.trim_end().len());
    Span::new(start, end)
}

/// Every `${…}` written on a node's line or in its block: the inside and its exact span.
pub fn node_refs<'m>(map: &'m crate::SourceMap, node: &Node, file: usize) -> Vec<(&'m str, Span)> {
    let mut span = node.span;
    if let Some(y) = &node.yaml {
        span = span.cover(y.span);
    }
    let text = &map.get(file).text()[span.range()];
    if !values::has_open(text) {
        return Vec::new();
    }
    // A `Run step with:` block's `name` is display text, not a template: only references
    // in the step's other members count.
    let mut templates: Option<BTreeSet<String>> = None;
    if node.stmt == Stmt::RunStep
        && let Some(Value::Object(block)) = node.yaml.as_ref().and_then(|y| y.value.as_ref())
    {
        let mut rest = block.clone();
        rest.shift_remove("name");
        let mut set = BTreeSet::new();
        values::each_ref(&Value::Object(rest), &mut |r| {
            set.insert(r.to_string());
        });
        templates = Some(set);
    }
    values::refs(text)
        .filter(|(_, inner)| !inner.trim().is_empty())
        .filter(|(_, inner)| templates.as_ref().is_none_or(|t| t.contains(*inner)))
        .map(|(at, inner)| {
            let start = span.start as usize + at;
            (inner, Span::new(start, start + inner.len() + 3))
        })
        .collect()
}

/// Records `${deps.…}` references written on a line or in its block, with exact spans.
fn collect_deps_refs(l: &Lower<'_>, b: &mut TestBuilder, node: &Node, file: usize) {
    let mut span = node.span;
    if let Some(y) = &node.yaml {
        span = span.cover(y.span);
    }
    // Most lines read no dependency: one byte search instead of collecting references.
    if !l.map.get(file).text()[span.range()].contains("${deps.") {
        return;
    }
    for (inner, span) in node_refs(l.map, node, file) {
        if inner.starts_with("deps.") {
            b.deps_refs.push((inner.to_string(), file, span));
        }
    }
}

/// Namespaces every body may read: the environment, data rows, dependency outputs, state.
pub const NAMESPACES: &[&str] = &["env", "row", "deps", "state"];

fn assert(step: &mut Step) -> &mut Assert {
    step.assert.get_or_insert_with(Assert::default)
}

fn assertion(path: String) -> Assertion {
    Assertion {
        path: Some(path),
        ..Default::default()
    }
}

/// Applies an expectation or modifier to step `i`.
fn attach(l: &mut Lower<'_>, b: &mut TestBuilder, i: usize, node: &Node, scope: &Scope<'_>) {
    let file = scope.file;
    let entry = l.entry;
    let step = &mut b.steps[i];
    let mut json_check: Option<Assertion> = None;
    match &node.stmt {
        Stmt::ExpectSuccess => assert(step).status = Some(Status::Success),
        Stmt::ExpectError => assert(step).status = Some(Status::Error),
        Stmt::ExpectErrorCode { code } => {
            let a = assert(step);
            a.status = Some(Status::Error);
            if let Some(c) = code.value {
                a.error.get_or_insert_with(ErrorExpectation::default).code = Some(c);
            }
        }
        Stmt::ExpectErrorMessage { compare, value } => {
            let a = assert(step);
            a.status = Some(Status::Error);
            let e = a.error.get_or_insert_with(ErrorExpectation::default);
            let v = scope.rename_str(&value.value);
            match compare {
                Compare::Matches => e.matches = Some(v),
                // `contains` is a substring test: a regex that matches the text literally.
                Compare::Contains => e.matches = Some(values::regex_escape(&v)),
                _ => e.message = Some(v),
            }
        }
        Stmt::ExpectFinishWithin { duration } => {
            if let Some(ms) = duration.ms {
                assert(step).max_duration_ms = Some(ms);
            }
        }
        Stmt::ExpectValue {
            path,
            compare,
            value,
        } => {
            let Some(p) = l.path(file, path) else { return };
            let step = &mut b.steps[i];
            let mut a = assertion(p);
            let typed = || {
                let mut v = values::typed(&value.value);
                scope.rename_value(&mut v);
                v
            };
            match compare {
                Compare::Equals => a.equals = Some(typed()),
                Compare::NotEquals => a.not_equals = Some(typed()),
                Compare::Contains => a.contains = Some(typed()),
                // A regular expression is text, never typed.
                _ => a.matches = Some(scope.rename_str(&value.value)),
            }
            push_json(step, a);
            return;
        }
        Stmt::ExpectExists { path } => {
            json_check = l.path(file, path).map(|p| Assertion {
                exists: Some(true),
                ..assertion(p)
            })
        }
        Stmt::ExpectLength { path, count, .. } => {
            if let Some(n) = count.value.and_then(|n| u64::try_from(n).ok()) {
                json_check = l.path(file, path).map(|p| Assertion {
                    length: Some(n),
                    ..assertion(p)
                })
            }
        }
        Stmt::ExpectType { path, kind } => {
            let k = match kind {
                ValueType::String => JsonType::String,
                ValueType::Number => JsonType::Number,
                ValueType::Boolean => JsonType::Boolean,
                ValueType::Object => JsonType::Object,
                ValueType::Array => JsonType::Array,
                ValueType::Null => JsonType::Null,
                // `date` and `json` are column types; the parser keeps them out of `is a`.
                ValueType::Date | ValueType::Json => JsonType::String,
            };
            json_check = l.path(file, path).map(|p| Assertion {
                kind: Some(k),
                ..assertion(p)
            })
        }
        Stmt::ExpectMatchesSchema { path } => {
            if let Some(schema) = block_map(node) {
                let mut v = Value::Object(schema);
                scope.rename_value(&mut v);
                if let (Some(p), Value::Object(schema)) = (l.path(file, path), v) {
                    json_check = Some(Assertion {
                        schema: Some(schema),
                        ..assertion(p)
                    });
                }
            }
        }
        Stmt::ExpectSnapshot {
            path,
            name,
            ignoring,
        } => {
            let mut ignore = Vec::new();
            for p in ignoring {
                if let Some(p) = l.path(file, p) {
                    push_unique(&mut ignore, p);
                }
            }
            json_check = l.path(file, path).map(|p| Assertion {
                snapshot: Some(SnapshotAssertion {
                    name: scope.rename_str(&name.value),
                    ignore: (!ignore.is_empty()).then_some(ignore),
                }),
                ..assertion(p)
            })
        }
        Stmt::Save { path, variable } => {
            if let Some(p) = l.path(file, path) {
                let step = &mut b.steps[i];
                step.capture
                    .get_or_insert_with(OrderedMap::new)
                    .insert(variable.value.clone(), p);
                if scope.frames.is_empty() && file == entry {
                    b.saves.push((variable.value.clone(), variable.span, i));
                }
            }
            return;
        }
        Stmt::Export {
            path,
            name,
            aggregate,
            sensitive,
        } => {
            if let Some(p) = l.path(file, path) {
                let step = &mut b.steps[i];
                step.export.get_or_insert_with(OrderedMap::new).insert(
                    name.value.clone(),
                    Export {
                        path: p,
                        aggregate: Some(match aggregate {
                            None => ir::Aggregate::Single,
                            Some(crate::syntax::Aggregate::List) => ir::Aggregate::List,
                            Some(crate::syntax::Aggregate::Map) => ir::Aggregate::Map,
                        }),
                        sensitive: sensitive.then_some(true),
                    },
                );
                if file == entry {
                    b.exports.push((name.value.clone(), name.span));
                }
            }
            return;
        }
        Stmt::WaitUpTo { duration } => {
            if let Some(ms) = duration.ms {
                match &mut step.kind {
                    StepKind::Native(n) => *n.timeout_ms_mut() = Some(ms),
                    _ => step.timeout_ms = Some(ms),
                }
            }
        }
        _ => {}
    }
    if let Some(a) = json_check {
        push_json(&mut b.steps[i], a);
    }
}

fn push_json(step: &mut Step, a: Assertion) {
    let assert = step.assert.get_or_insert_with(Assert::default);
    match &mut assert.json {
        Some(JsonAssertions::List(list)) => list.push(a),
        Some(JsonAssertions::One(one)) => {
            let first = std::mem::take(one.as_mut());
            assert.json = Some(JsonAssertions::List(vec![first, a]));
        }
        None => assert.json = Some(JsonAssertions::List(vec![a])),
    }
}

impl Lower<'_> {
    /// The location of a byte offset, for a step's `source`.
    pub fn location(&self, file: usize, span: Span) -> SourceLocation {
        let f = self.map.get(file);
        let p = f.position(span.start as usize);
        SourceLocation::new(f.path(), p.line, p.column)
    }

    /// Normalises and checks an author's path; reports MCPLANG415 when it is malformed.
    pub fn path(&mut self, file: usize, text: &Text) -> Option<String> {
        let p = normalise_path(&text.value);
        match values::check_path(&p) {
            Ok(()) => Some(p),
            Err(reason) => {
                self.report(Problem::BadResultPath { path: p, reason }, file, text.span);
                None
            }
        }
    }

    /// The span of `key:` inside a node's YAML block (the node's line when not found).
    pub fn key_span(&self, file: usize, node: &Node, key: &str) -> Span {
        let Some(y) = &node.yaml else {
            return node.span;
        };
        let text = &self.map.get(file).text()[y.span.range()];
        let mut offset = 0;
        let mut indent = usize::MAX;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start_matches(' ');
            let lead = line.len() - trimmed.len();
            if !trimmed.trim().is_empty() && !trimmed.starts_with('#') {
                indent = indent.min(lead);
                if lead == indent {
                    let k = trimmed
                        .strip_prefix(key)
                        .or_else(|| {
                            trimmed
                                .strip_prefix('"')
                                .and_then(|t| t.strip_prefix(key))
                                .and_then(|t| t.strip_prefix('"'))
                        })
                        .or_else(|| {
                            trimmed
                                .strip_prefix('\'')
                                .and_then(|t| t.strip_prefix(key))
                                .and_then(|t| t.strip_prefix('\''))
                        });
                    if k.is_some_and(|r| r.starts_with(':')) {
                        let start = y.span.start as usize + offset + lead;
                        let len = trimmed.find(':').unwrap_or(key.len());
                        return Span::new(start, start + len);
                    }
                }
            }
            offset += line.len();
        }
        node.span
    }
}
