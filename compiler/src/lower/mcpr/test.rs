//! One test: its properties, its body, and the checks on the variables it declares, saves
//! and reads.

use super::*;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;

/// Builder state while a test body (and the flows it calls) is walked.
pub struct TestBuilder {
    /// Steps so far (those not let go: see `flushed`).
    pub steps: Vec<Step>,
    /// Steps let go before the end of a long test ([`super::long::LongTest`]): the index of
    /// `steps[i]` in the test is `flushed + i`.
    pub flushed: usize,
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
#[derive(Default)]
struct Properties {
    /// `Id:`, when written.
    explicit_id: Option<Text>,
    /// Each `Depends on:` item with its span.
    depends: Vec<(String, Span)>,
    /// Each `Variables:` name with the span of its key.
    declared_vars: Vec<(String, Span)>,
    /// A data iteration was read (only the first counts: a second one is MCPLANG215).
    iterates: bool,
}

/// Room for a long test's steps before its body is lowered: a step for each action written
/// in it (a flow's steps still grow the list). A list grown by doubling holds up to twice
/// its steps, and the last doubling holds the old list and the new one at once: a test of
/// 750,000 `Send "ping"` lines peaked there. A short test grows its list as it goes.
fn steps_room(children: &[Node]) -> usize {
    use crate::syntax::DeclKind;
    if children.len() < 1024 {
        return 0;
    }
    children
        .iter()
        .flat_map(Node::walk)
        .filter(|n| matches!(n.decl_kind(), DeclKind::Action | DeclKind::Utility))
        .count()
}

/// The test named `name`, its body (`children`) lowered whole; `give_up`: nothing reads the
/// body's YAML blocks afterwards ([`TestLowering::statements`]).
pub(super) fn test(
    l: &mut Lower<'_>,
    (settings, flows, sources): (&Settings, &Flows<'_>, &OrderedMap<ir::DataSource>),
    (children, give_up): (&mut [Node], bool),
    name: &Text,
) -> BuiltTest {
    let mut t = TestLowering::new(name, steps_room(children));
    t.statements(l, (settings, flows, sources), (children, give_up));
    t.end(l, name, StepFacts::default())
}

/// A test being lowered: its body's statements are read in order, all at once ([`test`])
/// or part by part ([`super::long::LongTest`]); references are resolved at the end, since a
/// `Variables:` line may follow the steps that read them.
pub(super) struct TestLowering<'m> {
    t: Test,
    pub(super) b: TestBuilder,
    props: Properties,
    refs: References<'m>,
    /// Statements read so far.
    read: usize,
}

impl<'m> TestLowering<'m> {
    /// A test named `name`, with room for `steps`.
    pub(super) fn new(name: &Text, steps: usize) -> Self {
        TestLowering {
            t: Test::new(name.value.clone(), Vec::new()),
            b: TestBuilder {
                steps: Vec::with_capacity(steps),
                flushed: 0,
                current: None,
                phase: Phase::Test,
                variables: Map::new(),
                next_prefix: 0,
                deps_refs: Vec::new(),
                saves: Vec::new(),
                exports: Vec::new(),
                flow_statements: 0,
            },
            props: Properties::default(),
            refs: References::default(),
            read: 0,
        }
    }

    /// Reads the next statements of the body: their properties first (they are
    /// position-free), the references they write, then their steps. `give_up`: nothing
    /// reads the statements' YAML blocks afterwards, so the steps take them.
    pub(super) fn statements(
        &mut self,
        l: &mut Lower<'m>,
        (settings, flows, sources): (&Settings, &Flows<'_>, &OrderedMap<ir::DataSource>),
        (nodes, give_up): (&mut [Node], bool),
    ) {
        for node in nodes.iter() {
            properties(
                l,
                settings,
                sources,
                node,
                &mut self.t,
                &mut self.b.variables,
                &mut self.props,
            );
        }
        for (at, node) in nodes.iter().enumerate() {
            self.refs.statement(l, self.read + at, node);
        }
        self.read += nodes.len();
        let functions_declared = settings.functions.is_some();
        body(
            l,
            flows,
            &mut self.b,
            (nodes, give_up),
            &Scope::top(l.entry),
            functions_declared,
        );
    }

    /// The lowered test (named `name`), the checks on its variables made; `flushed`: what
    /// its steps let go before the end ([`TestBuilder::flushed`]) read and gave.
    pub(super) fn end(
        self,
        l: &mut Lower<'m>,
        name: &Text,
        flushed: StepFacts<'static>,
    ) -> BuiltTest {
        let TestLowering {
            mut t,
            b,
            props,
            refs,
            ..
        } = self;
        let mut facts: StepFacts<'_> = flushed;
        let reads = !props.declared_vars.is_empty() || !b.saves.is_empty();
        for (at, step) in b.steps.iter().enumerate() {
            facts.add(b.flushed + at, step, reads);
        }
        check_unread(l, &b, &facts, &props.declared_vars);
        refs.check(l, &facts, &props.declared_vars, props.iterates);
        drop(facts);
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
        let links = deps::Links::of(deps::Links {
            depends,
            deps_refs: b.deps_refs,
            exports: b.exports,
        });
        BuiltTest::new(t, (explicit, id_span), links)
    }
}

/// What the steps of a test read and give, for the checks on its variables: gathered from a
/// long test's steps before they are let go, and from the rest at the end.
#[derive(Default)]
pub(super) struct StepFacts<'s> {
    /// The references the steps read, each with its step's index.
    read: Vec<(usize, Cow<'s, str>)>,
    /// The names the steps give a value: captures, sets, native variables (a name may
    /// appear more than once).
    given: Vec<Cow<'s, str>>,
    /// The names steps of flows capture (a name may appear more than once).
    from_flows: Vec<Cow<'s, str>>,
}

impl<'s> StepFacts<'s> {
    /// Adds step `at` (`reads`: with the references it reads).
    pub(super) fn add(&mut self, at: usize, step: &'s Step, reads: bool) {
        if reads {
            step_refs(step, &mut |r| self.read.push((at, Cow::Borrowed(r))));
        }
        for key in step.capture.iter().flat_map(|c| c.keys()) {
            if !step.flow.is_empty() {
                self.from_flows.push(Cow::Borrowed(key));
            }
            self.given.push(Cow::Borrowed(key));
        }
        match &step.kind {
            StepKind::Set(s) => self.given.push(Cow::Borrowed(&s.variable)),
            // `Run step with:` native actions that set a variable (`prompt`, `save-text`).
            StepKind::Native(n) => self.given.extend(n.variable().map(Cow::Borrowed)),
            _ => {}
        }
    }

    /// Adds what `other` holds, owning its names; each name given is kept once.
    pub(super) fn append(&mut self, other: StepFacts<'_>) {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        self.read
            .extend(other.read.into_iter().map(|(i, r)| (i, own(r))));
        for (mine, theirs) in [
            (&mut self.given, other.given),
            (&mut self.from_flows, other.from_flows),
        ] {
            mine.extend(theirs.into_iter().map(own));
            mine.sort_unstable();
            mine.dedup();
        }
    }
}

/// What the statements of a test save and read, gathered statement by statement and
/// checked at the end ([`References::check`]).
#[derive(Default)]
struct References<'m> {
    /// The names a `Save` or `Set … using` line of the test gives a value, each with the
    /// first such line and its statement's index.
    first_saved: BTreeMap<String, (usize, Span)>,
    /// The first `Run step with:` block that captures or sets each name.
    first_run_step: BTreeMap<String, (usize, Span)>,
    /// Every reference written in a statement: its index, the reference, where, and whether
    /// the statement is `Variables:`.
    written: Vec<(usize, &'m str, Span, bool)>,
}

impl<'m> References<'m> {
    /// Gathers statement `at`.
    fn statement(&mut self, l: &Lower<'m>, at: usize, node: &Node) {
        match &node.stmt {
            Stmt::Save { variable, .. } | Stmt::SetUsing { variable, .. }
                if !self.first_saved.contains_key(&variable.value) =>
            {
                self.first_saved
                    .insert(variable.value.clone(), (at, variable.span));
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
                    if !self.first_run_step.contains_key(name) {
                        self.first_run_step
                            .insert(name.to_string(), (at, node.span));
                    }
                }
            }
            _ => {}
        }
        if matches!(node.stmt, Stmt::Comment | Stmt::Error) {
            return;
        }
        let variables = node.stmt == Stmt::Variables;
        for (inner, span) in node_refs(l.map, node, l.entry) {
            self.written.push((at, inner, span, variables));
        }
    }

    /// Every reference written in the test must name something the test declares, and a
    /// name the test saves may only be read after the line that saves it.
    fn check(
        &self,
        l: &mut Lower<'_>,
        facts: &StepFacts<'_>,
        declared_vars: &[(String, Span)],
        iterates: bool,
    ) {
        let file = l.entry;
        let mut known: BTreeSet<&str> = declared_vars.iter().map(|(n, _)| n.as_str()).collect();
        known.extend(["env", "deps", "state"]);
        if iterates {
            known.insert("row");
        }
        let declared: HashSet<&str> = declared_vars.iter().map(|(n, _)| n.as_str()).collect();
        known.extend(self.first_saved.keys().map(String::as_str));
        known.extend(facts.given.iter().map(|n| &**n));
        // A name saved only by a line of the test itself has no value before that line;
        // names a flow saves are left to the flow's own order.
        let always: BTreeSet<&str> = declared_vars
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(facts.from_flows.iter().map(|n| &**n))
            .collect();
        let first_save = |head: &str| {
            let saved = self
                .first_saved
                .get(head)
                .filter(|_| !always.contains(head));
            match (saved, self.first_run_step.get(head)) {
                (Some(a), Some(b)) => Some(*a.min(b)),
                (a, b) => a.or(b).copied(),
            }
        };
        for &(i, inner, span, variables) in &self.written {
            let head = values::head(inner);
            // `Variables:` values are templates read when the variable is used, not at the
            // top of the test (an expanded flow's inputs live there).
            if let Some((at, saved)) = first_save(head)
                && at >= i
                && !variables
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
            let dotted = values::named(inner).any(|n| declared.contains(n));
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

/// Sets the members of `t` the property line `node` gives (and the `Variables:` into
/// `variables`); any other statement gives none.
fn properties(
    l: &mut Lower<'_>,
    settings: &Settings,
    sources: &OrderedMap<ir::DataSource>,
    node: &Node,
    t: &mut Test,
    variables: &mut Map<String, Value>,
    p: &mut Properties,
) {
    let file = l.entry;
    if node.decl_kind() == crate::syntax::DeclKind::Iteration {
        if p.iterates {
            return;
        }
        p.iterates = true;
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

/// Warns about the variables the test declares or saves and never reads.
fn check_unread(
    l: &mut Lower<'_>,
    b: &TestBuilder,
    facts: &StepFacts<'_>,
    declared_vars: &[(String, Span)],
) {
    let file = l.entry;
    if declared_vars.is_empty() && b.saves.is_empty() {
        return;
    }
    // Every name read ([`values::names`]), and the last step that reads each head; the
    // values of `Variables:` are read by whichever step uses them (after every save).
    let mut read: HashSet<&str> = HashSet::new();
    let mut last: HashMap<&str, usize> = HashMap::new();
    let mut reads: Vec<(usize, &str)> = facts.read.iter().map(|(i, r)| (*i, &**r)).collect();
    for v in b.variables.values() {
        values::each_ref(v, &mut |r| reads.push((usize::MAX, r)));
    }
    for &(at, r) in &reads {
        if !declared_vars.is_empty() {
            read.extend(values::named(r));
        }
        if !b.saves.is_empty() {
            let last = last.entry(values::head(r)).or_insert(at);
            *last = (*last).max(at);
        }
    }
    for (name, span) in declared_vars {
        // Dotted names are the inputs of expanded flow calls (`flow0.a`, as the printer
        // writes them out); an input the flow never reads is the flow's business, not a
        // mistake in this test.
        if !name.contains('.') && !read.contains(name.as_str()) {
            l.report(Problem::UnreadVariable { name: name.clone() }, file, *span);
        }
    }
    for (name, span, at) in &b.saves {
        if last.get(name.as_str()).is_none_or(|last| last <= at) {
            l.report(
                Problem::UnreadSavedVariable { name: name.clone() },
                file,
                *span,
            );
        }
    }
}
