//! One test: its properties, its body, and the checks on the variables it declares, saves
//! and reads.

use super::*;

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
    /// Statements taken in through flows so far (held to [`super::flows::MAX_FLOW_STATEMENTS`]).
    pub flow_statements: usize,
}

/// What the properties of a test declare besides the IR test's own members.
struct Properties {
    /// `Id:`, when written.
    explicit_id: Option<Text>,
    /// Each `Depends on:` item with its span.
    depends: Vec<(String, Span)>,
    /// Each `Variables:` name with the span of its key.
    declared_vars: Vec<(String, Span)>,
}

/// Room for a long test's steps before its body is lowered: a step for each action written
/// in it (a flow's steps still grow the list). A list grown by doubling holds up to twice
/// its steps, and the last doubling holds the old list and the new one at once: a test of
/// 750,000 `Send "ping"` lines peaked there. A short test grows its list as it goes.
fn steps_room(header: &Node) -> usize {
    use crate::syntax::DeclKind;
    if header.children.len() < 1024 {
        return 0;
    }
    header
        .children
        .iter()
        .flat_map(Node::walk)
        .filter(|n| matches!(n.decl_kind(), DeclKind::Action | DeclKind::Utility))
        .count()
}

pub(super) fn test(
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
        steps: Vec::with_capacity(steps_room(header)),
        current: None,
        phase: Phase::Test,
        variables: Map::new(),
        next_prefix: 0,
        deps_refs: Vec::new(),
        saves: Vec::new(),
        exports: Vec::new(),
        flow_statements: 0,
    };
    // Only the first data iteration counts (a second one is MCPLANG215).
    let first_iteration = header
        .children
        .iter()
        .position(|n| n.decl_kind() == crate::syntax::DeclKind::Iteration);
    // Properties first: they are position-free.
    let props = properties(
        l,
        settings,
        sources,
        header,
        first_iteration,
        &mut t,
        &mut b.variables,
    );
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
    check_unread(l, &b, &props.declared_vars);
    check_references(
        l,
        header,
        &b,
        &props.declared_vars,
        first_iteration.is_some(),
    );
    let Properties {
        explicit_id,
        depends,
        ..
    } = props;
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
        test: deps::Lowered::whole(t),
        explicit_id: explicit,
        id_span,
        depends: depends.into(),
        deps_refs: b.deps_refs.into(),
        exports: b.exports.into(),
    }
}

/// Sets the members of `t` its property lines give (and the `Variables:` into `variables`).
fn properties(
    l: &mut Lower<'_>,
    settings: &Settings,
    sources: &OrderedMap<ir::DataSource>,
    header: &Node,
    first_iteration: Option<usize>,
    t: &mut Test,
    variables: &mut Map<String, Value>,
) -> Properties {
    let file = l.entry;
    let mut p = Properties {
        explicit_id: None,
        depends: Vec::new(),
        declared_vars: Vec::new(),
    };
    for (at, node) in header.children.iter().enumerate() {
        if node.decl_kind() == crate::syntax::DeclKind::Iteration && Some(at) != first_iteration {
            continue;
        }
        match &node.stmt {
            Stmt::Id { id } => p.explicit_id = Some(id.clone()),
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
            Stmt::IsolatedSession => t.isolated = Some(true),
            Stmt::Retries { count } => {
                t.retries = count
                    .value
                    .and_then(|v| u32::try_from(v).ok())
                    .filter(|n| *n <= 100)
            }
            Stmt::LogicalName { name } => t.logical_name = Some(name.value.clone()),
            Stmt::DataRow => t.data = block_map(node),
            Stmt::Variables => {
                if let Some(block) = block_map(node) {
                    let mut keys = l.key_lines(file, node);
                    for (k, v) in block {
                        p.declared_vars.push((k.clone(), keys.find(&k)));
                        variables.insert(k, v);
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
                    p.depends.push((i.value.clone(), i.span));
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
    p
}

/// Warns about the variables the test declares or saves and never reads.
fn check_unread(l: &mut Lower<'_>, b: &TestBuilder, declared_vars: &[(String, Span)]) {
    let file = l.entry;
    let mut read: Vec<(usize, &str)> = Vec::new();
    let wanted = !declared_vars.is_empty() || !b.saves.is_empty();
    for (i, step) in b.steps.iter().enumerate().filter(|_| wanted) {
        step_refs(step, &mut |r| read.push((i, r)));
    }
    for v in b.variables.values() {
        values::each_ref(v, &mut |r| read.push((usize::MAX, r)));
    }
    for (name, span) in declared_vars {
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
}

/// Every reference written in the test must name something the test declares, and a name
/// the test saves may only be read after the line that saves it.
fn check_references(
    l: &mut Lower<'_>,
    header: &Node,
    b: &TestBuilder,
    declared_vars: &[(String, Span)],
    iterates: bool,
) {
    let file = l.entry;
    let mut known: BTreeSet<&str> = declared_vars.iter().map(|(n, _)| n.as_str()).collect();
    known.extend(["env", "deps", "state"]);
    if iterates {
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
}
