//! The diagnostics of one compilation, held to a bound for `check`: a file of a million
//! mistakes must not hold a million worded diagnostics (about 1.4 KB each) when only the
//! first hundred of each file are shown. Past a threshold the collection sorts what it
//! holds, keeps the first `keep` of each file worded and turns the rest into 16-byte
//! [`Unshown`] keys, enough to drop repeats and count them on the closing
//! "… and N more" line. With `keep` 0 (compile, `check --fix`, the language server)
//! every diagnostic is kept worded.

use super::{Code, Diagnostic, Severity};

/// Whether a diagnostic of `code` is dropped when the file has errors: the "never used"
/// notes (9xx) are noise while a file does not compile.
pub fn quiet_when_failing(code: Code) -> bool {
    code.number() >= 900
}

/// A diagnostic let go past the limit of those worded: what sorting, dropping repeats
/// and counting need of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Unshown {
    /// Index of the file in the `SourceMap`.
    pub file: u32,
    /// The span's first byte.
    pub start: u32,
    /// One past the span's last byte.
    pub end: u32,
    /// The registered code.
    pub code: Code,
    /// Error (or warning).
    pub error: bool,
}

impl Unshown {
    /// The key of `d`.
    pub fn of(d: &Diagnostic) -> Self {
        Unshown {
            file: u32::try_from(d.file).unwrap_or(u32::MAX),
            start: d.span.start,
            end: d.span.end,
            code: d.code,
            error: d.severity == Severity::Error,
        }
    }
}

/// What a compilation found: the diagnostics worded, sorted, and those past the limit of
/// each file as keys ([`Collected::finish`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Worded and sorted: at most `keep` of each file (all with `keep` 0).
    pub worded: Vec<Diagnostic>,
    /// The others, sorted, each once, none the key of a worded one.
    pub unshown: Vec<Unshown>,
}

impl Found {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.worded.is_empty() && self.unshown.is_empty()
    }
}

/// Diagnostics as they are reported, the worded ones bounded.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    held: Vec<Diagnostic>,
    /// The most kept worded of each file (and of each family: see [`Self::prune`]);
    /// 0 keeps all.
    keep: usize,
    /// The length of `held` at which it is pruned next.
    prune_at: usize,
    unshown: Vec<Unshown>,
    errors: bool,
    /// Each file and family ([`quiet_when_failing`]) that kept `keep` worded at the last
    /// prune, with the sort key of the last of them ([`Self::past_limit`]).
    full: Vec<(usize, bool, SortKey)>,
}

/// Where a diagnostic of a file sorts ([`super::sort`]): span and code.
type SortKey = (u32, u32, Code);

/// The sort key of `d` within its file.
fn sort_key(d: &Diagnostic) -> SortKey {
    (d.span.start, d.span.end, d.code)
}

/// Where a check reports what it finds: a plain list, or a bounded [`Collected`].
pub trait Sink {
    /// Adds one diagnostic.
    fn push(&mut self, d: Diagnostic);
}

impl Sink for Vec<Diagnostic> {
    fn push(&mut self, d: Diagnostic) {
        Vec::push(self, d);
    }
}

impl Sink for Collected {
    fn push(&mut self, d: Diagnostic) {
        Collected::push(self, d);
    }
}

/// The fewest diagnostics held before the first prune, whatever `keep`.
const PRUNE_FLOOR: usize = 1024;

impl Collected {
    /// An empty collection keeping `keep` worded diagnostics of each file (0: all).
    pub fn new(keep: usize) -> Self {
        Collected {
            keep,
            prune_at: Self::threshold(keep, 0),
            ..Collected::default()
        }
    }

    /// An empty collection with the limit of `self`.
    pub fn empty_like(&self) -> Self {
        Collected::new(self.keep)
    }

    fn threshold(keep: usize, held: usize) -> usize {
        (held * 2).max(keep * 8).max(PRUNE_FLOOR)
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.errors |= d.is_error();
        if self.past_limit(&d) {
            self.unshown.push(Unshown::of(&d));
            return;
        }
        self.held.push(d);
        if self.keep > 0 && self.held.len() >= self.prune_at {
            self.prune();
        }
    }

    /// Adds every diagnostic of `more`.
    pub fn extend(&mut self, more: impl IntoIterator<Item = Diagnostic>) {
        for d in more {
            self.push(d);
        }
    }

    /// Adds what `other` collected.
    pub fn append(&mut self, other: Collected) {
        self.errors |= other.errors;
        self.unshown.extend(other.unshown);
        self.extend(other.held);
    }

    /// Every diagnostic of a collection that keeps all (`keep` 0, as a part of a body
    /// parsed on its own), in the order reported.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        debug_assert!(self.unshown.is_empty(), "a bounded collection let some go");
        self.held
    }

    /// Whether an error was reported.
    pub fn has_error(&self) -> bool {
        self.errors
    }

    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && self.unshown.is_empty()
    }

    /// The worded diagnostics held now, in no particular order.
    pub fn worded(&self) -> &[Diagnostic] {
        &self.held
    }

    /// Whether `d` sorts after the last of `keep` worded diagnostics of its file and family
    /// kept at the last prune: it can then never be worded, and is let go at once. (A file of
    /// 200,000 mistakes held a thousand worded diagnostics at a time, freed together at each
    /// prune: their memory went back to the system and was taken again, some 250 MB during
    /// one check, and what was waiting to go back counted in its peak.) Diagnostics held
    /// since the last prune can only sort before `d` as well, so the test stays true.
    fn past_limit(&self, d: &Diagnostic) -> bool {
        let quiet = quiet_when_failing(d.code);
        self.full
            .iter()
            .any(|&(file, family, last)| file == d.file && family == quiet && sort_key(d) > last)
    }

    /// Sorts what is held and keeps, of each file, the first `keep` of the quiet family
    /// ([`quiet_when_failing`]) and the first `keep` of the others worded. Kept apart,
    /// the first `keep` of a file are among them whether or not the quiet ones are
    /// dropped at the end.
    fn prune(&mut self) {
        super::sort(&mut self.held);
        let keep = self.keep;
        let mut kept = Vec::with_capacity(self.held.len().min(keep * 4));
        let mut file = usize::MAX;
        let mut counts = [0usize; 2];
        self.full.clear();
        for d in self.held.drain(..) {
            if d.file != file {
                file = d.file;
                counts = [0, 0];
            }
            let quiet = quiet_when_failing(d.code);
            let family = usize::from(quiet);
            if counts[family] < keep {
                counts[family] += 1;
                if counts[family] == keep {
                    self.full.push((d.file, quiet, sort_key(&d)));
                }
                kept.push(d);
            } else {
                self.unshown.push(Unshown::of(&d));
            }
        }
        self.held = kept;
        self.prune_at = Self::threshold(keep, self.held.len());
    }

    /// The diagnostics, sorted, each once: the quiet ones dropped when there is an error,
    /// at most `keep` worded of each file, the rest as keys.
    pub fn finish(mut self) -> Found {
        if self.errors {
            self.held.retain(|d| !quiet_when_failing(d.code));
            self.unshown.retain(|u| !quiet_when_failing(u.code));
        }
        super::sort(&mut self.held);
        if self.keep > 0 {
            let mut file = usize::MAX;
            let mut count = 0;
            let keep = self.keep;
            let unshown = &mut self.unshown;
            self.held.retain(|d| {
                if d.file != file {
                    file = d.file;
                    count = 0;
                }
                count += 1;
                let kept = count <= keep;
                if !kept {
                    unshown.push(Unshown::of(d));
                }
                kept
            });
        }
        self.unshown.sort_unstable();
        self.unshown
            .dedup_by(|a, b| (a.file, a.start, a.end, a.code) == (b.file, b.start, b.end, b.code));
        Found {
            worded: self.held,
            unshown: self.unshown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Problem;
    use crate::source::Span;

    fn error_at(file: usize, at: u32) -> Diagnostic {
        let problem = Problem::UnknownStatement {
            context: "test",
            suggestion: None,
        };
        Diagnostic::new(problem, file, Span::new(at as usize, at as usize + 1))
    }

    /// Everything collected without a limit, finished the way `check` shows it: sorted,
    /// each once, the first `keep` of each file worded and the rest counted.
    fn unbounded(all: &[Diagnostic], keep: usize) -> (Vec<Diagnostic>, usize) {
        let mut sorted = all.to_vec();
        crate::diagnostics::sort(&mut sorted);
        let mut shown = Vec::new();
        let mut rest = 0;
        let mut per_file = std::collections::HashMap::new();
        for d in sorted {
            let n = per_file.entry(d.file).or_insert(0);
            *n += 1;
            if *n <= keep {
                shown.push(d);
            } else {
                rest += 1;
            }
        }
        (shown, rest)
    }

    #[test]
    fn a_flood_keeps_the_first_of_each_file_worded_and_counts_the_rest_once() {
        // Out of order, two files, every problem reported twice.
        let mut all = Vec::new();
        for k in (0..5_000u32).rev() {
            all.push(error_at((k % 2) as usize, k * 3));
            all.push(error_at((k % 2) as usize, k * 3));
        }
        let mut c = Collected::new(100);
        c.extend(all.iter().cloned());
        assert!(c.has_error());
        let found = c.finish();
        let (shown, rest) = unbounded(&all, 100);
        assert_eq!(found.worded, shown);
        assert_eq!(found.unshown.len(), rest);
        assert!(found.unshown.windows(2).all(|w| w[0] < w[1]));
    }

    fn unused_flow_at(at: u32) -> Diagnostic {
        let problem = Problem::UnusedFlow { name: "f".into() };
        Diagnostic::new(problem, 0, Span::new(at as usize, at as usize + 1))
    }

    #[test]
    fn notes_let_go_before_an_error_never_hide_a_problem_shown() {
        // 3,000 "never used" notes early in the file, then errors after them: once the
        // notes are dropped, the first errors are shown, not counted.
        let mut all: Vec<Diagnostic> = (0..3_000).map(unused_flow_at).collect();
        all.extend((0..3_000).map(|k| error_at(0, 10_000 + k)));
        let mut c = Collected::new(50);
        c.extend(all.iter().cloned());
        let found = c.finish();
        all.retain(|d| !quiet_when_failing(d.code));
        let (shown, rest) = unbounded(&all, 50);
        assert_eq!(found.worded, shown);
        assert_eq!(found.unshown.len(), rest);
    }

    #[test]
    fn in_reading_order_what_cannot_be_worded_is_let_go_at_once() {
        // Two files in reading order, each problem twice.
        let errors: Vec<Diagnostic> = (0..20_000u32)
            .flat_map(|k| {
                [
                    error_at((k % 2) as usize, k * 3),
                    error_at((k % 2) as usize, k * 3),
                ]
            })
            .collect();
        let mut c = Collected::new(100);
        for (n, d) in errors.iter().enumerate() {
            c.push(d.clone());
            // Past the first prune, the first 100 of each file (and a repeat of the last):
            // not the thousand of a prune's threshold.
            if n >= PRUNE_FLOOR {
                assert!(c.worded().len() <= 2 * 100 + 2, "{} held", c.worded().len());
            }
        }
        let found = c.finish();
        let (shown, rest) = unbounded(&errors, 100);
        assert_eq!(found.worded, shown);
        assert_eq!(found.unshown.len(), rest);
        // With notes among the errors, which are let go once the file has an error.
        let mut all = Vec::new();
        for k in 0..20_000u32 {
            let d = if k % 7 == 0 {
                unused_flow_at(k * 3)
            } else {
                error_at((k % 2) as usize, k * 3)
            };
            all.push(d.clone());
            all.push(d);
        }
        let mut c = Collected::new(100);
        c.extend(all.iter().cloned());
        let found = c.finish();
        all.retain(|d| !quiet_when_failing(d.code));
        let (shown, rest) = unbounded(&all, 100);
        assert_eq!(found.worded, shown);
        assert_eq!(found.unshown.len(), rest);
    }

    #[test]
    fn without_a_limit_everything_stays_worded() {
        let mut c = Collected::new(0);
        c.extend((0..3_000).map(|k| error_at(0, k)));
        let found = c.finish();
        assert_eq!(found.worded.len(), 3_000);
        assert!(found.unshown.is_empty());
    }

    #[test]
    fn appended_collections_finish_as_one() {
        let all: Vec<Diagnostic> = (0..4_000).map(|k| error_at(0, 4_000 - k)).collect();
        let (first, second) = all.split_at(2_500);
        let mut a = Collected::new(10);
        a.extend(first.iter().cloned());
        let mut b = a.empty_like();
        b.extend(second.iter().cloned());
        a.append(b);
        let found = a.finish();
        let (shown, rest) = unbounded(&all, 10);
        assert_eq!(found.worded, shown);
        assert_eq!(found.unshown.len(), rest);
    }
}
