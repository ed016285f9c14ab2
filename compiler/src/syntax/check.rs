//! Structural checks over the parsed tree: unique block names, tests with an
//! action, expectations with a step to attach to, one data iteration per
//! test, answers that cannot carry a block.

use super::tree::*;
use crate::diagnostics::{Diagnostic, Problem, Sink};
use crate::ir::sets::ELICITATION_ACTIONS;

/// Runs every structural check on a document.
pub fn structure(doc: &Document, file_id: usize, diags: &mut impl Sink) {
    names(doc.nodes.iter().filter_map(declared), file_id, diags);
    for node in &doc.nodes {
        block(node, file_id, diags);
    }
}

/// The kind and name of a test, flow or data source header.
pub(super) fn declared(node: &Node) -> Option<(&'static str, &Text)> {
    match &node.stmt {
        Stmt::TestHeader { name } => Some(("test", name)),
        Stmt::FlowHeader { name } => Some(("flow", name)),
        Stmt::DataSourceHeader { name } => Some(("data source", name)),
        _ => None,
    }
}

/// Test, flow and data source names declared twice, among `declared` (kind and name, in
/// file order). The names are sorted by kind, name and place, so the first of each run is
/// the one declared first: 24 bytes a name, where a hash map of them took over fifty and
/// its copies as it grew (a file of 200,000 tests held 16 MB more while its outline was
/// checked).
pub(super) fn names<'d>(
    declared: impl Iterator<Item = (&'static str, &'d Text)> + Clone,
    file_id: usize,
    diags: &mut impl Sink,
) {
    let mut sorted: Vec<(&'static str, &'d Text)> = Vec::with_capacity(declared.clone().count());
    sorted.extend(declared);
    let key =
        |(kind, name): &(&'static str, &'d Text)| (*kind, name.value.as_str(), name.span.start);
    sorted.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
    let mut twice: Vec<(&Text, &Text, &'static str)> = Vec::new();
    let mut first = 0;
    for at in 1..sorted.len() {
        let ((kind, name), (first_kind, first_name)) = (sorted[at], sorted[first]);
        if kind == first_kind && name.value == first_name.value {
            twice.push((name, first_name, kind));
        } else {
            first = at;
        }
    }
    drop(sorted);
    // Reported in file order.
    twice.sort_unstable_by_key(|(name, _, _)| name.span.start);
    for (name, first, kind) in twice {
        diags.push(
            Diagnostic::new(
                Problem::DuplicateName {
                    kind,
                    name: name.value.clone(),
                },
                file_id,
                name.span,
            )
            .with_secondary(first.span, "first declared here"),
        );
    }
}

/// The checks of one top-level node and what it holds: the body of a test or flow, and the
/// answers to input requests anywhere in it.
pub(super) fn block(node: &Node, file_id: usize, diags: &mut impl Sink) {
    let name = match &node.stmt {
        Stmt::TestHeader { name } => Some(name),
        Stmt::FlowHeader { .. } => None,
        _ => {
            answers(node, file_id, diags);
            return;
        }
    };
    let mut body = BodyCheck::new(name.is_some());
    for child in &node.children {
        body.statement(child, file_id, diags);
    }
    body.end(node.span, name, file_id, diags);
}

/// The answers to input requests in `node` and what it holds.
pub(super) fn answers(node: &Node, file_id: usize, diags: &mut impl Sink) {
    for child in &node.children {
        answers(child, file_id, diags);
    }
    let Stmt::RespondToElicitation { action, with } = &node.stmt else {
        return;
    };
    let a = action.value.to_ascii_lowercase();
    if !ELICITATION_ACTIONS.contains(&a.as_str()) {
        diags.push(Diagnostic::new(
            Problem::MalformedStatement {
                usage: "When the server asks for input, respond \"accept\" with:",
                expected: "expected \"accept\", \"decline\" or \"cancel\"".into(),
            },
            file_id,
            action.span,
        ));
    } else if *with && a != "accept" {
        diags.push(Diagnostic::new(
            Problem::BlockNotAllowed { action: a },
            file_id,
            node.span,
        ));
    }
}

/// The checks of one test or flow body, fed its statements in order (a long test's body
/// arrives in parts: [`super::parse_tests`]): an action in every test, expectations with a
/// step to attach to, one data iteration, and the answers to input requests.
pub(super) struct BodyCheck {
    test: bool,
    has_action: bool,
    /// What expectations attach to now (`None`: nothing).
    current: Option<&'static str>,
    /// What left nothing to attach to.
    cleared_by: &'static str,
    iteration_seen: bool,
    /// A broken line, which may have been the action.
    has_error: bool,
}

impl BodyCheck {
    /// The check of a test's body (`test`) or a flow's.
    pub(super) fn new(test: bool) -> Self {
        BodyCheck {
            test,
            has_action: false,
            current: (!test).then_some("the start of the flow"),
            cleared_by: "the start of the test",
            iteration_seen: false,
            has_error: false,
        }
    }

    /// Checks the body's next statement.
    pub(super) fn statement(&mut self, node: &Node, file_id: usize, diags: &mut impl Sink) {
        answers(node, file_id, diags);
        match node.decl_kind() {
            DeclKind::Action => {
                let scripted = matches!(
                    node.stmt,
                    Stmt::RespondToElicitation { .. } | Stmt::RespondToSampling { .. }
                );
                if !scripted {
                    self.has_action = true;
                }
                self.current = Some("step");
            }
            DeclKind::Iteration => {
                self.has_action = true;
                if self.iteration_seen {
                    diags.push(Diagnostic::new(
                        Problem::SecondIteration,
                        file_id,
                        node.span,
                    ));
                }
                self.iteration_seen = true;
            }
            // A broken line may have been the action: what follows it is not reported
            // as standing before one.
            DeclKind::Error => {
                self.has_action = true;
                self.current = Some("step");
            }
            DeclKind::Section => {
                self.current = None;
                self.cleared_by = "a section marker";
            }
            DeclKind::Utility => {
                self.current = None;
                self.cleared_by = "`Set … using` (it produces a variable, not a result)";
            }
            DeclKind::Expectation | DeclKind::Modifier => {
                if self.test && !self.has_action {
                    let word = node_first_word(node);
                    diags.push(Diagnostic::new(
                        Problem::ExpectationBeforeAction { word },
                        file_id,
                        node.span,
                    ));
                } else if self.current.is_none() {
                    diags.push(Diagnostic::new(
                        Problem::NothingToAttach {
                            after: self.cleared_by,
                        },
                        file_id,
                        node.span,
                    ));
                }
            }
            _ => {}
        }
        self.has_error |= matches!(node.stmt, Stmt::Error);
    }

    /// After the last statement of the body of the block at `span` (`test`: the test's name).
    pub(super) fn end(
        self,
        span: crate::source::Span,
        test: Option<&Text>,
        file_id: usize,
        diags: &mut impl Sink,
    ) {
        // A broken line may have been the action; one problem is reported once.
        if let Some(name) = test
            && !self.has_action
            && !self.has_error
        {
            diags.push(Diagnostic::new(
                Problem::TestWithoutAction {
                    name: name.value.clone(),
                },
                file_id,
                span,
            ));
        }
    }
}

/// The leading word of an expectation/modifier line, for messages.
fn node_first_word(node: &Node) -> String {
    match &node.stmt {
        Stmt::Save { .. } => "Save".into(),
        Stmt::Export { .. } => "Export".into(),
        Stmt::WaitUpTo { .. } => "Wait up to".into(),
        Stmt::Fault { fault } => match fault {
            FaultPhrase::Drop => "Drop the response",
            FaultPhrase::Delay(_) => "Delay the response",
            FaultPhrase::Disconnect => "Disconnect after the request",
            FaultPhrase::Duplicate => "Duplicate the response",
            FaultPhrase::Corrupt => "Corrupt the response",
        }
        .into(),
        _ => "Expect".into(),
    }
}
