//! Flows: declarations (local and imported), recursion, and expansion at each `Use flow`.
//!
//! A call gets a prefix unique within its test (`flow0`, `flow1`, … in the order calls are
//! expanded, nested ones included), its inputs become the test variables `flowK.NAME`, and
//! inside the body every reference to an input is renamed to `${flowK.NAME}`. Other
//! references (`${env.…}`, `${row.…}`, `${deps.…}`, `${state.…}`, values saved in the flow)
//! are left as written. Steps keep the position of the line in the flow's own file and carry
//! the chain of calls they came from.

use super::Lower;
use super::mcpr::{NAMESPACES, TestBuilder, block_ref, node_refs};
use crate::diagnostics::{FlowExcess, Problem};
use crate::ir::FlowFrame;
use crate::names::closest;
use crate::source::Span;
use crate::syntax::{Document, Node, Stmt, Text};
use crate::values;
use foldhash::{HashMap, HashMapExt};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// One declared flow.
pub struct Flow<'d> {
    /// The name as written on the header.
    pub name: &'d Text,
    /// The file it is declared in.
    pub file: usize,
    /// The header node (the body is its children).
    pub node: &'d Node,
    /// Inputs in declaration order, with their defaults.
    pub inputs: Vec<(String, Option<Value>)>,
    /// The input names, for renaming references.
    names: BTreeSet<String>,
    /// Whether some test uses it (directly or through another flow).
    pub used: AtomicBool,
    /// Whether it is part of a recursive cycle (never expanded).
    pub recursive: AtomicBool,
    /// The statements a call takes into a test, those of the flows it calls included
    /// (saturating; see [`MAX_FLOW_STATEMENTS`]).
    size: usize,
    /// How many flows a call nests, itself included (saturating; see [`MAX_FLOW_DEPTH`]).
    depth: usize,
    /// Statements of its body `check` did not keep (a flow too long ever to be expanded:
    /// [`crate::syntax::Outline::flow_statements_left_out`]); they count in its size.
    left_out: usize,
}

/// The most flows one call may nest, itself included: a test calls a flow that calls a flow …
/// at most this deep. Flows are expanded into each test that uses them, and each step keeps
/// the chain of calls it came from, so a deep chain costs memory with the square of its depth.
pub const MAX_FLOW_DEPTH: usize = 32;

/// The most statements one test may take in through its flows (each flow line once per
/// time it is expanded). Twenty flows each calling the one before twice are a few hundred
/// bytes and a million statements; such a call is refused with MCPLANG426 before anything
/// is expanded, since each flow's size is known from its body.
pub const MAX_FLOW_STATEMENTS: usize = 10_000;

/// The most statements the tests of one suite may take in through flows together: a
/// thousand-byte flow used by every one of forty thousand one-line tests would otherwise be
/// hundreds of millions of statements. Tests are lowered on several threads for a large file,
/// so which calls pass this budget first can differ from one run to the next; that the suite
/// is past it does not.
pub const MAX_SUITE_FLOW_STATEMENTS: usize = 100_000;

/// The most flows the search for the names a flow saves through its calls looks at. Past it
/// the flow's references are not judged (no unknown-variable report for it).
const MAX_SAVED_SEARCH: usize = 4096;

/// Every flow visible to the entry file: its own first, then the imported ones.
pub struct Flows<'d> {
    by_name: HashMap<&'d str, usize>,
    /// The flows of the imported standard libraries by their check ids (`tools.call`), which
    /// `docs/stdlib.md` names them by; a flow's own name comes first.
    by_id: HashMap<String, usize>,
    list: Vec<Flow<'d>>,
    /// Statements the tests lowered so far took in through flows, together (held to
    /// [`MAX_SUITE_FLOW_STATEMENTS`]; shared by the threads lowering tests).
    taken: AtomicUsize,
}

/// Where a body is being walked: its file, the flow calls around it, and the renaming of
/// the innermost call's inputs.
#[derive(Clone)]
pub struct Scope<'f> {
    /// File of the body's lines.
    pub file: usize,
    /// Calls from the test down to this body, outermost first.
    pub frames: Vec<FlowFrame>,
    /// Prefix and input names of the innermost call.
    inputs: Option<(String, &'f BTreeSet<String>)>,
    /// Names of the flows being expanded (to stop at recursion).
    stack: Vec<&'f str>,
}

impl Scope<'_> {
    /// The scope of a test body.
    pub fn top(file: usize) -> Self {
        Self {
            file,
            frames: Vec::new(),
            inputs: None,
            stack: Vec::new(),
        }
    }

    fn renamer(&self) -> impl Fn(&str, &mut String) -> bool + '_ {
        move |r: &str, out: &mut String| {
            let Some((prefix, names)) = self.inputs.as_ref() else {
                return false;
            };
            if !names.contains(values::head(r)) {
                return false;
            }
            out.push_str(prefix);
            out.push('.');
            out.push_str(r);
            true
        }
    }

    /// A string with the call's input references renamed.
    pub fn rename_str(&self, s: &str) -> String {
        if self.inputs.is_none() || !values::has_open(s) {
            return s.to_string();
        }
        values::rename_in_str(s, &self.renamer())
    }

    /// A value with the call's input references renamed.
    pub fn rename_value(&self, v: &mut Value) {
        if self.inputs.is_some() {
            values::rename(v, &self.renamer());
        }
    }

    /// A mapping with the call's input references renamed.
    pub fn rename_map(&self, m: Map<String, Value>) -> Map<String, Value> {
        let mut v = Value::Object(m);
        self.rename_value(&mut v);
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

impl<'d> Flows<'d> {
    /// Collects the flows of the entry file and of the imported files; checks recursion.
    pub fn collect(
        l: &mut Lower<'_>,
        (entry, left_out): (&'d Document, &[(Span, usize)]),
        imported: &[(usize, &'d Document)],
    ) -> Self {
        let mut flows = Flows {
            by_name: HashMap::new(),
            by_id: HashMap::new(),
            list: Vec::new(),
            taken: AtomicUsize::new(0),
        };
        let files = std::iter::once((l.entry, entry)).chain(imported.iter().copied());
        for (file, doc) in files {
            for node in &doc.nodes {
                let Stmt::FlowHeader { name } = &node.stmt else {
                    continue;
                };
                if let Some(&first) = flows.by_name.get(name.value.as_str()) {
                    // Duplicates inside one file are MCPLANG201 of the parser. Across files,
                    // the flow of the file being checked wins; it is reported there, and an
                    // imported duplicate of another imported flow where it is declared.
                    let earlier = &flows.list[first];
                    if earlier.file != file {
                        let (at, span) = if earlier.file == l.entry {
                            (earlier.file, earlier.name.span)
                        } else {
                            (file, name.span)
                        };
                        l.report(
                            Problem::DuplicateName {
                                kind: "flow",
                                name: name.value.clone(),
                            },
                            at,
                            span,
                        );
                    }
                    continue;
                }
                let inputs = node
                    .children
                    .iter()
                    .find_map(|c| match &c.stmt {
                        Stmt::Inputs { inputs } => Some(inputs),
                        _ => None,
                    })
                    .map(|inputs| {
                        inputs
                            .iter()
                            .map(|i| {
                                (
                                    i.name.value.clone(),
                                    i.default.as_ref().map(|d| values::typed(&d.value)),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                flows.by_name.insert(name.value.as_str(), flows.list.len());
                let inputs: Vec<(String, Option<Value>)> = inputs;
                flows.list.push(Flow {
                    name,
                    file,
                    node,
                    names: inputs.iter().map(|(n, _)| n.clone()).collect(),
                    inputs,
                    used: AtomicBool::new(false),
                    recursive: AtomicBool::new(false),
                    size: 0,
                    depth: 0,
                    left_out: left_out
                        .iter()
                        .find(|(at, _)| file == l.entry && *at == node.span)
                        .map_or(0, |(_, n)| *n),
                });
            }
        }
        flows.index_check_ids(l);
        flows.check_recursion(l);
        flows.measure();
        flows.check_variables(l);
        flows
    }

    /// Names the flows of each imported standard library by their check ids too.
    fn index_check_ids(&mut self, l: &Lower<'_>) {
        for (at, flow) in self.list.iter().enumerate() {
            let Some(library) = l.map.get(flow.file).path().strip_prefix("std:") else {
                continue;
            };
            if let Some(check) = crate::stdlib::check_id(library, &flow.name.value) {
                self.by_id.entry(check).or_insert(at);
            }
        }
    }

    /// The index of the flow named `name`, by its name or, for a standard flow, its check id.
    fn index(&self, name: &str) -> Option<usize> {
        self.by_name
            .get(name)
            .or_else(|| self.by_id.get(name))
            .copied()
    }

    /// The flows a flow's body calls, by index, in order (unknown names left out).
    fn callees(&self, at: usize) -> impl Iterator<Item = usize> + '_ {
        self.list[at]
            .node
            .children
            .iter()
            .filter_map(|c| match &c.stmt {
                Stmt::UseFlow { name, .. } => self.index(name.value.as_str()),
                _ => None,
            })
    }

    /// Works out each flow's [`Flow::size`] and [`Flow::depth`], callees first, without
    /// recursion (a chain of flows may be thousands long). A recursive flow is never
    /// expanded: a call of it counts as its one line.
    fn measure(&mut self) {
        let n = self.list.len();
        let recursive: Vec<bool> = self
            .list
            .iter()
            .map(|f| f.recursive.load(Relaxed))
            .collect();
        let mut done = vec![false; n];
        let mut stack: Vec<(usize, bool)> = Vec::new();
        for start in 0..n {
            stack.push((start, false));
            while let Some((at, callees_done)) = stack.pop() {
                if done[at] {
                    continue;
                }
                if !callees_done && !recursive[at] {
                    stack.push((at, true));
                    stack.extend(
                        self.callees(at)
                            .filter(|&c| !done[c] && !recursive[c])
                            .map(|c| (c, false)),
                    );
                    continue;
                }
                let (mut size, mut depth) = (self.list[at].left_out, 1usize);
                for child in &self.list[at].node.children {
                    size = size.saturating_add(match &child.stmt {
                        Stmt::Comment
                        | Stmt::Error
                        | Stmt::Inputs { .. }
                        | Stmt::Outputs { .. } => 0,
                        Stmt::UseFlow { name, .. } => match self.index(name.value.as_str()) {
                            Some(c) if !recursive[c] && !recursive[at] => {
                                depth = depth.max(self.list[c].depth.saturating_add(1));
                                self.list[c].size.saturating_add(1)
                            }
                            _ => 1,
                        },
                        _ => 1,
                    });
                }
                self.list[at].size = size;
                self.list[at].depth = depth;
                done[at] = true;
            }
        }
    }

    /// Names a flow's own body saves or sets.
    fn saved_here(&self, at: usize, out: &mut BTreeSet<String>) {
        for child in &self.list[at].node.children {
            match &child.stmt {
                Stmt::Save { variable, .. } | Stmt::SetUsing { variable, .. } => {
                    out.insert(variable.value.clone());
                }
                // A `Run step with:` block's captures, `set` variable, and the variable of a
                // `prompt`/`save-text` action.
                Stmt::RunStep => {
                    if let Some(Value::Object(block)) =
                        child.yaml.as_ref().and_then(|y| y.value.as_ref())
                    {
                        if let Some(Value::Object(c)) = block.get("capture") {
                            out.extend(c.keys().cloned());
                        }
                        for kind in ["set", "native"] {
                            if let Some(Value::String(v)) =
                                block.get(kind).and_then(|k| k.get("variable"))
                            {
                                out.insert(v.clone());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Adds the names the flows `at` calls save or set, through their own calls too, as deep
    /// as calls may nest ([`MAX_FLOW_DEPTH`]), breadth first and without recursion. `mark`
    /// is scratch space of one slot per flow. False when the search stopped at
    /// [`MAX_SAVED_SEARCH`] flows before the end.
    fn saved_below(&self, at: usize, mark: &mut [usize], out: &mut BTreeSet<String>) -> bool {
        let stamp = at + 1;
        mark[at] = stamp;
        let mut level = vec![at];
        let mut visited = 0usize;
        for _ in 1..MAX_FLOW_DEPTH {
            let mut next = Vec::new();
            for &f in &level {
                for c in self.callees(f) {
                    if mark[c] == stamp {
                        continue;
                    }
                    mark[c] = stamp;
                    visited += 1;
                    if visited > MAX_SAVED_SEARCH {
                        return false;
                    }
                    self.saved_here(c, out);
                    next.push(c);
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        true
    }

    /// Reports references in flow bodies that reach past the flow's inputs (MCPLANG419).
    fn check_variables(&self, l: &mut Lower<'_>) {
        let mut mark = vec![0usize; self.list.len()];
        for (at, flow) in self.list.iter().enumerate() {
            let mut known: BTreeSet<String> = flow.inputs.iter().map(|(n, _)| n.clone()).collect();
            known.extend(NAMESPACES.iter().map(|n| n.to_string()));
            self.saved_here(at, &mut known);
            let mut refs = Vec::new();
            for child in &flow.node.children {
                if matches!(
                    child.stmt,
                    Stmt::Comment | Stmt::Error | Stmt::Inputs { .. } | Stmt::Outputs { .. }
                ) {
                    continue;
                }
                refs.extend(node_refs(l.map, child, flow.file));
            }
            // The flows below are searched only when the body reads a name it does not
            // declare itself.
            let unknown_here = |known: &BTreeSet<String>, r: &str| {
                !values::incomplete_namespace_ref(r) && !known.contains(values::head(r))
            };
            if refs.iter().any(|(r, _)| unknown_here(&known, r))
                && !self.saved_below(at, &mut mark, &mut known)
            {
                continue;
            }
            for (inner, span) in refs {
                let head = values::head(inner);
                if values::incomplete_namespace_ref(inner) {
                    l.report(
                        Problem::IncompleteReference {
                            reference: inner.to_string(),
                        },
                        flow.file,
                        span,
                    );
                } else if !known.contains(head) {
                    let suggestion = closest(head, known.iter().map(String::as_str));
                    l.report(
                        Problem::UnknownVariable {
                            reference: inner.to_string(),
                            flow: Some(flow.name.value.clone()),
                            suggestion,
                            surface: l.surface,
                        },
                        flow.file,
                        span,
                    );
                }
            }
        }
    }

    /// The flow named `name`.
    pub fn get(&self, name: &str) -> Option<&Flow<'d>> {
        self.index(name).map(|i| &self.list[i])
    }

    /// Reports every cycle of calls between flows once, at the call that closes it, and marks
    /// the flows of every cycle recursive. Depth first over the calls, with a stack of its own
    /// rather than the call stack (a chain of flows may be thousands long).
    fn check_recursion(&self, l: &mut Lower<'_>) {
        const NOT_VISITED: usize = usize::MAX;
        const DONE: usize = usize::MAX - 1;
        // Per flow: NOT_VISITED, DONE, or its place on `path` while it is being walked.
        let mut state = vec![NOT_VISITED; self.list.len()];
        // The flows being walked, each with the calls of its body still to follow.
        let mut path: Vec<(usize, std::slice::Iter<'_, Node>)> = Vec::new();
        // The calls that closed a cycle (a second line making the same call says nothing new).
        let mut reported: BTreeSet<(usize, usize)> = BTreeSet::new();
        for start in 0..self.list.len() {
            if state[start] != NOT_VISITED {
                continue;
            }
            state[start] = 0;
            path.push((start, self.list[start].node.children.iter()));
            while let Some((at, calls)) = path.last_mut() {
                let at = *at;
                let Some(child) = calls.next() else {
                    state[at] = DONE;
                    path.pop();
                    continue;
                };
                let Stmt::UseFlow { name, .. } = &child.stmt else {
                    continue;
                };
                let Some(next) = self.index(name.value.as_str()) else {
                    continue;
                };
                match state[next] {
                    NOT_VISITED => {
                        state[next] = path.len();
                        path.push((next, self.list[next].node.children.iter()));
                    }
                    DONE => {}
                    from => {
                        let cycle: Vec<usize> = path[from..].iter().map(|(f, _)| *f).collect();
                        for &c in &cycle {
                            self.list[c].recursive.store(true, Relaxed);
                        }
                        if !reported.insert((at, next)) {
                            continue;
                        }
                        l.report(
                            Problem::RecursiveFlow {
                                chain: self.chain_names(&cycle, next),
                            },
                            self.list[at].file,
                            name.span,
                        );
                    }
                }
            }
        }
    }

    /// The names of a cycle of calls for its message, the first one again at the end; a long
    /// cycle shows its first and last few flows.
    fn chain_names(&self, cycle: &[usize], back_to: usize) -> Vec<String> {
        const SHOWN: usize = 4;
        let quoted = |f: usize| format!("\"{}\"", self.list[f].name.value);
        let mut chain: Vec<String> = Vec::new();
        if cycle.len() <= 2 * SHOWN + 1 {
            chain.extend(cycle.iter().map(|&c| quoted(c)));
        } else {
            chain.extend(cycle[..SHOWN].iter().map(|&c| quoted(c)));
            chain.push(format!("… {} more …", cycle.len() - 2 * SHOWN));
            chain.extend(cycle[cycle.len() - SHOWN..].iter().map(|&c| quoted(c)));
        }
        chain.push(quoted(back_to));
        chain
    }

    /// Warns about flows of the entry file that no test uses.
    pub fn report_unused(&self, l: &mut Lower<'_>) {
        for f in &self.list {
            if f.file == l.entry && !f.used.load(Relaxed) {
                l.report(
                    Problem::UnusedFlow {
                        name: f.name.value.clone(),
                    },
                    f.file,
                    f.name.span,
                );
            }
        }
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|f| f.name.value.as_str())
    }
}

/// Enters one `Use flow` line of the test being built: checks the call, sets its inputs
/// and hands back the scope and the statements of the flow's body for the caller to walk
/// ([`super::mcpr::body`] keeps the calls being walked on a stack of its own). `None` when
/// nothing is to be expanded. A call written in a test is held to the flow budget first.
pub fn enter<'f>(
    l: &mut Lower<'_>,
    flows: &'f Flows<'_>,
    b: &mut TestBuilder,
    node: &Node,
    name: &Text,
    scope: &Scope<'f>,
) -> Option<(Scope<'f>, &'f [Node])> {
    let Some(flow) = flows.get(&name.value) else {
        unknown_flow(l, flows, name, scope);
        return None;
    };
    flow.used.store(true, Relaxed);
    if flow.recursive.load(Relaxed) || scope.stack.contains(&name.value.as_str()) {
        mark_used(flows, flow);
        return None;
    }
    // The calls inside an accepted call are within the budget: its size and depth count them.
    if scope.frames.is_empty() {
        let total = b.flow_statements.saturating_add(flow.size);
        if let Some(over) = over_budget(flows, flow, total) {
            l.report(
                Problem::FlowTooLarge {
                    flow: name.value.clone(),
                    over,
                },
                scope.file,
                name.span,
            );
            mark_used(flows, flow);
            return None;
        }
        b.flow_statements = total;
    }
    let no_args = Map::new();
    let given = block_ref(node).unwrap_or(&no_args);
    check_inputs(l, flow, given, node, name, scope);
    let prefix = {
        let mut p = String::from("flow");
        p.push_str(&b.next_prefix.to_string());
        p
    };
    b.next_prefix += 1;
    let inner = Scope {
        file: flow.file,
        frames: {
            let mut f = scope.frames.clone();
            f.push(FlowFrame {
                name: name.value.clone(),
                call_site: l.location(scope.file, node.span),
                prefix: prefix.clone(),
            });
            f
        },
        inputs: Some((prefix.clone(), &flow.names)),
        stack: {
            let mut s = scope.stack.clone();
            s.push(flow.name.value.as_str());
            s
        },
    };
    set_inputs(b, flow, given, &prefix, scope, &inner);
    Some((inner, &flow.node.children))
}

/// Reports a call of a flow that is not declared, unless its file could not be imported;
/// a standard flow named by its check id points at its library.
fn unknown_flow(l: &mut Lower<'_>, flows: &Flows<'_>, name: &Text, scope: &Scope<'_>) {
    // A flow of a file that could not be imported is not reported again as unknown.
    if l.import_failed() {
        return;
    }
    l.report(
        match crate::stdlib::library_of_check(&name.value) {
            // A standard flow named by its check id, from a library not imported.
            library @ Some(_) => Problem::UnknownFlow {
                name: name.value.clone(),
                suggestion: None,
                library,
            },
            None => Problem::UnknownFlow {
                name: name.value.clone(),
                suggestion: closest(&name.value, flows.names()),
                library: None,
            },
        },
        scope.file,
        name.span,
    );
}

/// What a call from a test would exceed: the depth of nested flows, the statements the test
/// takes in (`total` with this call), or the suite's budget, which an accepted call takes
/// from.
fn over_budget(flows: &Flows<'_>, flow: &Flow<'_>, total: usize) -> Option<FlowExcess> {
    if flow.depth > MAX_FLOW_DEPTH {
        Some(FlowExcess::Depth {
            depth: flow.depth,
            limit: MAX_FLOW_DEPTH,
        })
    } else if total > MAX_FLOW_STATEMENTS {
        Some(FlowExcess::Statements {
            total,
            limit: MAX_FLOW_STATEMENTS,
        })
    } else if flows
        .taken
        .fetch_update(Relaxed, Relaxed, |taken| {
            let sum = taken.saturating_add(flow.size);
            (sum <= MAX_SUITE_FLOW_STATEMENTS).then_some(sum)
        })
        .is_err()
    {
        Some(FlowExcess::Suite {
            limit: MAX_SUITE_FLOW_STATEMENTS,
        })
    } else {
        None
    }
}

/// Reports the arguments of a call that the flow does not declare, and the inputs without
/// a default that the call does not give.
fn check_inputs(
    l: &mut Lower<'_>,
    flow: &Flow<'_>,
    given: &Map<String, Value>,
    node: &Node,
    name: &Text,
    scope: &Scope<'_>,
) {
    let unknown: Vec<String> = given
        .keys()
        .filter(|k| !flow.names.contains(*k))
        .cloned()
        .collect();
    let missing: Vec<String> = flow
        .inputs
        .iter()
        .filter(|(n, d)| d.is_none() && !given.contains_key(n))
        .map(|(n, _)| n.clone())
        .collect();
    if !unknown.is_empty() {
        l.report(
            Problem::UnknownFlowInput {
                flow: name.value.clone(),
                inputs: unknown,
                declared: flow.inputs.iter().map(|(n, _)| n.clone()).collect(),
            },
            scope.file,
            node.span,
        );
    }
    if !missing.is_empty() {
        l.report(
            Problem::MissingFlowInput {
                flow: name.value.clone(),
                inputs: missing,
            },
            scope.file,
            node.span,
        );
    }
}

/// Sets the call's inputs as the test's variables `PREFIX.INPUT`: each argument renamed in
/// the caller's scope, else the default renamed in the flow's.
fn set_inputs(
    b: &mut TestBuilder,
    flow: &Flow<'_>,
    given: &Map<String, Value>,
    prefix: &str,
    scope: &Scope<'_>,
    inner: &Scope<'_>,
) {
    for (input, default) in &flow.inputs {
        let value = match given.get(input) {
            Some(v) => {
                let mut v = v.clone();
                scope.rename_value(&mut v);
                v
            }
            None => match default {
                Some(d) => {
                    let mut d = d.clone();
                    inner.rename_value(&mut d);
                    d
                }
                None => continue,
            },
        };
        let mut key = String::with_capacity(prefix.len() + 1 + input.len());
        key.push_str(prefix);
        key.push('.');
        key.push_str(input);
        b.variables.insert(key, value);
    }
}

/// Marks the flows a flow that is not expanded calls as used, and theirs (a recursive flow,
/// or a call past the budget): they are not reported as unused.
fn mark_used(flows: &Flows<'_>, flow: &Flow<'_>) {
    let mut todo = vec![flow];
    while let Some(flow) = todo.pop() {
        for child in &flow.node.children {
            if let Stmt::UseFlow { name, .. } = &child.stmt
                && let Some(f) = flows.get(&name.value)
                && !f.used.swap(true, Relaxed)
            {
                todo.push(f);
            }
        }
    }
}
