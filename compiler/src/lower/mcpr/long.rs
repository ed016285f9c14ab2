//! A long test in `check`: its body arrives in parts ([`crate::syntax::Body`]), and the
//! steps no later statement can change are judged and let go as each part is lowered, so
//! that neither the whole body nor all its steps are ever held. What the checks on its
//! variables need of the steps let go is kept ([`StepFacts`]), their problems are reported
//! with the test's. A test whose steps do not satisfy the schema is lowered again whole,
//! for its problems to be worded where they are written.

use super::test::{StepFacts, TestLowering};
use super::*;
use crate::diagnostics::Collected;

/// A long test being lowered part by part.
pub(super) struct LongTest<'m> {
    /// The test's name.
    name: Text,
    lowering: TestLowering<'m>,
    /// What was reported before the test started, set aside: what is reported since is
    /// the test's, taken back when it is lowered again whole.
    before: Collected,
    /// What the steps let go read and gave.
    facts: StepFacts<'static>,
    /// The problems of the steps let go (patterns, values outside their sets), reported as
    /// the test's own would be once it is judged.
    judged: Collected,
    /// Some steps let go did not satisfy the schema.
    invalid: bool,
}

impl<'m> LongTest<'m> {
    /// The test of `header` (a `Test:` line without its body).
    pub(super) fn start(l: &mut Lower<'m>, header: Node) -> Option<Self> {
        let Stmt::TestHeader { name } = header.stmt else {
            return None;
        };
        Some(LongTest {
            lowering: TestLowering::new(&name, 0),
            name,
            before: l.set_aside(),
            facts: StepFacts::default(),
            judged: Collected::new(l.options.keep_diagnostics),
            invalid: false,
        })
    }

    /// Lowers the next statements of the body, and lets go of the steps before the one
    /// expectations attach to now (no later statement changes them).
    pub(super) fn part(
        &mut self,
        l: &mut Lower<'m>,
        context: (&Settings, &Flows<'_>, &OrderedMap<ir::DataSource>),
        nodes: &mut [Node],
    ) {
        // The statements are let go once lowered: their steps take their blocks.
        self.lowering.statements(l, context, (nodes, true));
        let b = &mut self.lowering.b;
        let done = b.current.unwrap_or(b.steps.len());
        if done < l.options.long_bodies.let_go.max(1) {
            return;
        }
        let steps: Vec<Step> = b.steps.drain(..done).collect();
        b.current = b.current.map(|c| c - done);
        let mut facts = StepFacts::default();
        for (at, step) in steps.iter().enumerate() {
            facts.add(b.flushed + at, step, true);
        }
        self.facts.append(facts);
        b.flushed += done;
        match super::super::validate::steps_alone(l, &self.name.value, steps) {
            Some(diags) => self.judged.extend(diags),
            None => self.invalid = true,
        }
    }

    /// The lowered test (with the steps not let go) and the problems of the steps let go;
    /// `None` when some step does not satisfy the schema: the test's diagnostics are taken
    /// back, and it must be lowered again whole. Not when an error was reported: the schema
    /// is then never applied to the suite (a body of a million broken lines is not parsed
    /// twice, nor held whole).
    pub(super) fn end(self, l: &mut Lower<'m>) -> Option<(BuiltTest, Collected)> {
        let mut built = self.lowering.end(l, &self.name, self.facts);
        let valid = built
            .test_mut()
            .is_some_and(super::super::validate::test_is_valid);
        let failed = self.before.has_error() || l.diags.has_error();
        let keep = failed || (!self.invalid && valid);
        l.resume(self.before, keep);
        keep.then_some((built, self.judged))
    }
}
