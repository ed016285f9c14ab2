//! Document settings: the suite name, its servers and their options, defaults, budgets,
//! snapshots, the client behaviour and extensions.

use super::*;

/// Applies one document setting of the entry file to the suite's settings.
pub(super) fn document_setting(l: &mut Lower<'_>, s: &mut Settings, node: &Node) {
    let file = l.entry;
    match &node.stmt {
        Stmt::Suite { name } => s.name = Some(name.value.clone()),
        Stmt::Server { .. }
        | Stmt::McpUrl { .. }
        | Stmt::ServerFromCommandLine
        | Stmt::NamedServer { .. }
        | Stmt::CompareTarget { .. } => server_setting(l, s, &node.stmt),
        Stmt::ServerOptions => server_options(l, s, node),
        Stmt::ServerOptionsFor { name } | Stmt::TargetOptionsFor { name } => {
            named_options(l, s, node, name)
        }
        Stmt::DefaultTimeout { .. }
        | Stmt::ShutdownGrace { .. }
        | Stmt::DefaultRetries { .. }
        | Stmt::SessionSetting { .. } => default_setting(s, &node.stmt),
        Stmt::MinimumCoverage { percent } => {
            s.minimum_coverage = Some(f64::from(*percent));
        }
        Stmt::Budget(b) => budget(s, b),
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
        Stmt::ClientBehavior => client_behavior(l, s, node),
        Stmt::Extensions => extensions(l, s, node),
        Stmt::Functions { paths } => {
            let list = s.functions.get_or_insert_with(Vec::new);
            for p in paths.iter().filter(|p| !p.value.is_empty()) {
                push_unique(list, p.value.clone());
            }
        }
        _ => {}
    }
}

/// `Server:`, `MCP URL:`, `Server from the command line`, `Server NAME:` and `Compare
/// target NAME:`: the server the suite runs against, and the named ones (the first named one
/// is the target when no other is given).
fn server_setting(l: &mut Lower<'_>, s: &mut Settings, stmt: &Stmt) {
    let file = l.entry;
    match stmt {
        Stmt::Server { command } if !command.value.trim().is_empty() => {
            s.target = Some((command_target(l, file, command), Link::None));
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
            let target = connection(l, file, c);
            s.servers.insert(name.value.clone(), target.clone());
            s.servers_at.push((file, name.span));
            if s.target.is_none() {
                s.target = Some((target, Link::Server(name.value.clone())));
            }
        }
        Stmt::CompareTarget {
            name,
            connection: c,
        } => {
            let target = connection(l, file, c);
            s.targets.insert(name.value.clone(), target.clone());
            s.targets_at.push((file, name.span));
            if s.target.is_none() {
                s.target = Some((target, Link::Compare(name.value.clone())));
            }
        }
        _ => {}
    }
}

/// `Server options:` and its block: options of the target given so far, and of the named
/// server or compare target it is.
fn server_options(l: &mut Lower<'_>, s: &mut Settings, node: &Node) {
    let file = l.entry;
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

/// `Server options for NAME:` and `Target options for NAME:`: options of a named server or
/// compare target declared before, and of the target when it is that one.
fn named_options(l: &mut Lower<'_>, s: &mut Settings, node: &Node, name: &Text) {
    let file = l.entry;
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

/// `Default timeout:`, `Shutdown grace:`, `Default retries:` and the session setting: the
/// suite's defaults for every test.
fn default_setting(s: &mut Settings, stmt: &Stmt) {
    match stmt {
        Stmt::DefaultTimeout { duration } => {
            if let Some(ms) = duration.ms {
                s.defaults
                    .get_or_insert_with(ir::Defaults::default)
                    .timeout_ms = Some(ms);
            }
        }
        Stmt::ShutdownGrace { duration } => {
            if let Some(ms) = duration.ms {
                s.defaults
                    .get_or_insert_with(ir::Defaults::default)
                    .shutdown_grace_ms = Some(ms);
            }
        }
        Stmt::DefaultRetries { count } => {
            if let Some(n) = count
                .value
                .and_then(|v| u32::try_from(v).ok())
                .filter(|n| *n <= 100)
            {
                s.defaults.get_or_insert_with(ir::Defaults::default).retries = Some(n);
            }
        }
        Stmt::SessionSetting { shared } => {
            s.defaults.get_or_insert_with(ir::Defaults::default).session = Some(if *shared {
                ir::SessionMode::Shared
            } else {
                ir::SessionMode::PerTest
            });
        }
        _ => {}
    }
}

/// A latency budget: a percentile of one test's (or every test's) durations.
fn budget(s: &mut Settings, b: &crate::syntax::Budget) {
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

/// `Client behavior:` and its block; a later block sets again what it names and keeps the
/// rest.
fn client_behavior(l: &mut Lower<'_>, s: &mut Settings, node: &Node) {
    let file = l.entry;
    let Some(block) = block_map(node) else { return };
    match serde_json::from_value::<ir::ClientBehavior>(Value::Object(block)) {
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

/// `Extensions:` and its block: the functions, permissions, allow-list and legacy switch
/// of the suite's extensions.
fn extensions(l: &mut Lower<'_>, s: &mut Settings, node: &Node) {
    let file = l.entry;
    let Some(block) = block_map(node) else { return };
    let ext = match serde_json::from_value::<ir::Extensions>(Value::Object(block)) {
        Ok(ext) => ext,
        Err(e) => {
            let at = block_first_line(l, file, node);
            l.report(
                Problem::BadExtensions {
                    reason: e.to_string(),
                },
                file,
                at,
            );
            return;
        }
    };
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

/// A scalar option value as text.
pub(super) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(super) fn string_map(v: &Value) -> Result<OrderedMap<String>, String> {
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

/// `inherit env: true`, `false`, or a list of variable names and `*` globs.
fn inherit_env(value: &Value) -> Result<InheritEnv, String> {
    const WANTED: &str = "must be `true`, `false` or a list of variable names (`*` globs allowed)";
    match value {
        Value::Bool(b) => Ok(InheritEnv::All(*b)),
        Value::String(name) if !name.trim().is_empty() => {
            Ok(InheritEnv::Names(vec![name.trim().to_string()]))
        }
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(n) if !n.trim().is_empty() => Ok(n.trim().to_string()),
                _ => Err(WANTED.to_string()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(InheritEnv::Names),
        _ => Err(WANTED.into()),
    }
}

/// Applies a `Server options` block to one target; every key must fit its transport.
pub(super) fn apply_options(
    l: &mut Lower<'_>,
    target: &mut Target,
    block: &Map<String, Value>,
    node: &Node,
) {
    let file = l.entry;
    let spans: Vec<Span> = {
        let mut keys = l.key_lines(file, node);
        block.keys().map(|k| keys.find(k)).collect()
    };
    for ((key, value), at) in block.iter().zip(spans) {
        let result: Result<(), String> = match target {
            Target::Stdio(t) => match key.as_str() {
                "cwd" => scalar_text(value)
                    .map(|c| t.cwd = Some(c))
                    .ok_or_else(|| "must be a folder path".to_string()),
                "env" => string_map(value).map(|m| t.env = Some(m)),
                "inherit env" | "inheritEnv" | "inherit_env" => {
                    inherit_env(value).map(|i| t.inherit_env = Some(i))
                }
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

pub(super) fn http_option(t: &mut HttpTarget, key: &str, value: &Value) -> Result<(), String> {
    match key {
        "headers" => string_map(value).map(|m| t.headers = Some(m)),
        "Token from" | "token from" | "tokenFrom" => scalar_text(value)
            .map(|c| t.token_from = Some(c))
            .ok_or_else(|| "must be a command".to_string()),
        "OAuth" | "oauth" | "Auth" | "auth" => oauth(value).map(|o| t.oauth = Some(o)),
        "cwd" | "env" | "inherit env" | "inheritEnv" | "inherit_env" => {
            Err("applies to servers started as a command, not to HTTP servers".into())
        }
        _ => Err("is not a server option".into()),
    }
}
