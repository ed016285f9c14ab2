//! Flows: declarations (local and imported), recursion, and expansion at each `Use flow`.
//!
//! A call gets a prefix unique within its test (`flow0`, `flow1`, … in the order calls are
//! expanded, nested ones included), its inputs become the test variables `flowK.NAME`, and
//! inside the body every reference to an input is renamed to `${flowK.NAME}`. Other
//! references (`${env.…}`, `${row.…}`, `${deps.…}`, `${state.…}`, values saved in the flow)
//! are left as written. Steps keep the position of the line in the flow's own file and carry
//! the chain of calls they came from.

use super::Lower;
use super::mcpr::{NAMESPACES, TestBuilder, block_ref, body, node_refs};
use crate::diagnostics::Problem;
use crate::ir::FlowFrame;
use crate::names::closest;
use crate::syntax::{Document, Node, Stmt, Text};
use crate::values;
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

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
}

/// Every flow visible to the entry file: its own first, then the imported ones.
pub struct Flows<'d> {
    by_name: HashMap<&'d str, usize>,
    /// The flows of the imported standard libraries by their check ids (`tools.call`), which
    /// `docs/stdlib.md` names them by; a flow's own name comes first.
    by_id: HashMap<String, usize>,
    list: Vec<Flow<'d>>,
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
        entry: &'d Document,
        imported: &[(usize, &'d Document)],
    ) -> Self {
        let mut flows = Flows {
            by_name: HashMap::new(),
            by_id: HashMap::new(),
            list: Vec::new(),
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
                });
            }
        }
        flows.index_check_ids(l);
        flows.check_recursion(l);
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

    /// Names a flow saves or sets, itself or through the flows it calls.
    fn saved(&self, at: usize, seen: &mut Vec<bool>, out: &mut BTreeSet<String>) {
        if seen[at] {
            return;
        }
        seen[at] = true;
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
                Stmt::UseFlow { name, .. } => {
                    if let Some(next) = self.index(&name.value) {
                        self.saved(next, seen, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// Reports references in flow bodies that reach past the flow's inputs (MCPLANG419).
    fn check_variables(&self, l: &mut Lower<'_>) {
        for (at, flow) in self.list.iter().enumerate() {
            let mut known: BTreeSet<String> = flow.inputs.iter().map(|(n, _)| n.clone()).collect();
            known.extend(NAMESPACES.iter().map(|n| n.to_string()));
            self.saved(at, &mut vec![false; self.list.len()], &mut known);
            for child in &flow.node.children {
                if matches!(
                    child.stmt,
                    Stmt::Comment | Stmt::Error | Stmt::Inputs { .. } | Stmt::Outputs { .. }
                ) {
                    continue;
                }
                for (inner, span) in node_refs(l.map, child, flow.file) {
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
    }

    /// The flow named `name`.
    pub fn get(&self, name: &str) -> Option<&Flow<'d>> {
        self.index(name).map(|i| &self.list[i])
    }

    /// Reports every cycle of calls between flows once, at the call that closes it.
    fn check_recursion(&self, l: &mut Lower<'_>) {
        // 0 = not visited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; self.list.len()];
        let mut reported: BTreeSet<Vec<usize>> = BTreeSet::new();
        for start in 0..self.list.len() {
            if state[start] == 0 {
                let mut path = Vec::new();
                self.dfs(l, start, &mut state, &mut path, &mut reported);
            }
        }
    }

    fn dfs(
        &self,
        l: &mut Lower<'_>,
        at: usize,
        state: &mut [u8],
        path: &mut Vec<usize>,
        reported: &mut BTreeSet<Vec<usize>>,
    ) {
        state[at] = 1;
        path.push(at);
        let flow = &self.list[at];
        for child in &flow.node.children {
            let Stmt::UseFlow { name, .. } = &child.stmt else {
                continue;
            };
            let Some(next) = self.index(&name.value) else {
                continue;
            };
            match state[next] {
                1 => {
                    let from = path.iter().position(|&p| p == next).unwrap_or(0);
                    let cycle: Vec<usize> = path[from..].to_vec();
                    let mut key = cycle.clone();
                    key.sort_unstable();
                    for &c in &cycle {
                        self.list[c].recursive.store(true, Relaxed);
                    }
                    if reported.insert(key) {
                        let mut chain: Vec<String> = cycle
                            .iter()
                            .map(|&c| format!("\"{}\"", self.list[c].name.value))
                            .collect();
                        chain.push(format!("\"{}\"", self.list[next].name.value));
                        l.report(Problem::RecursiveFlow { chain }, flow.file, name.span);
                    }
                }
                0 => self.dfs(l, next, state, path, reported),
                _ => {}
            }
        }
        path.pop();
        state[at] = 2;
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

/// Expands one `Use flow` line into the test being built.
pub fn expand<'f>(
    l: &mut Lower<'_>,
    flows: &'f Flows<'_>,
    b: &mut TestBuilder,
    node: &Node,
    name: &Text,
    scope: &Scope<'f>,
    functions_declared: bool,
) {
    let Some(flow) = flows.get(&name.value) else {
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
        return;
    };
    flow.used.store(true, Relaxed);
    if flow.recursive.load(Relaxed) || scope.stack.contains(&name.value.as_str()) {
        mark_used(flows, flow);
        return;
    }
    let no_args = Map::new();
    let given = block_ref(node).unwrap_or(&no_args);
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
        key.push_str(&prefix);
        key.push('.');
        key.push_str(input);
        b.variables.insert(key, value);
    }
    // Section markers inside the flow change phases only inside it.
    let phase = b.phase;
    body(l, flows, b, &flow.node.children, &inner, functions_declared);
    b.phase = phase;
}

/// Marks the flows a recursive flow calls as used (they are never expanded).
fn mark_used(flows: &Flows<'_>, flow: &Flow<'_>) {
    for child in &flow.node.children {
        if let Stmt::UseFlow { name, .. } = &child.stmt
            && let Some(f) = flows.get(&name.value)
            && !f.used.swap(true, Relaxed)
        {
            mark_used(flows, f);
        }
    }
}
