//! Machine-applicable fixes: the mechanical `Try:` suggestions (a misspelt statement word,
//! flow, test id, function, data source, variable or YAML key) as text edits that `mcpr check
//! --fix` and editors apply without asking what was meant.
//!
//! Every fix has an [`Applicability`]. A fix that puts back a word of the language (a
//! statement keyword, a built-in function, a YAML key, a lint code) or mends the layout is
//! *safe*: `check --fix` applies it. A fix that replaces a name with another name the user
//! declared (a variable, a flow, a test id, a data source) is *unsafe*: the closest name is a
//! guess about the user's own intent, so `check --fix` applies it only with
//! `--unsafe-fixes`, and an editor offers it as a quick fix but not in "fix all".
//!
//! A fix is attached where the suggestion is made. Problems found while lowering know the
//! misspelt word and the diagnostic's span but not the text, so their fix is settled once the
//! text is at hand ([`settle`]): the edit is narrowed to where the word stands inside the span
//! (a YAML scalar's span includes its quotes, a reference's its `${`), and dropped when the
//! word is not there.

use super::Diagnostic;
use crate::SourceMap;
use crate::source::Span;
use serde::Serialize;

/// One replacement: the bytes of `span` (in the diagnostic's file) become `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// The byte range replaced (empty to insert).
    pub span: Span,
    /// The new text.
    pub replacement: String,
}

/// Whether a fix may be applied without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// It restores a word of the language or the layout: applied by `check --fix`.
    Safe,
    /// It replaces a name the user declared with another: applied only with
    /// `--unsafe-fixes`.
    Unsafe,
}

impl Applicability {
    /// `safe` or `unsafe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// A fix of one diagnostic: edits that, applied together, resolve it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What the fix does, for people (`replace \`nmae\` with \`name\``).
    pub message: String,
    /// Whether it may be applied without asking.
    pub applicability: Applicability,
    /// The edits, in the diagnostic's file, not overlapping, in order.
    pub edits: Vec<Edit>,
    /// The text a settled edit replaces (see [`settle`]); `None` once settled.
    #[serde(skip)]
    pub(crate) pending: Option<String>,
}

impl Fix {
    /// A safe fix replacing `span` with `replacement`.
    pub fn replace(span: Span, replacement: impl Into<String>, message: impl Into<String>) -> Fix {
        Fix {
            message: message.into(),
            applicability: Applicability::Safe,
            edits: vec![Edit {
                span,
                replacement: replacement.into(),
            }],
            pending: None,
        }
    }

    /// A fix replacing the word `written`, somewhere inside `span`, with `suggested`; its
    /// edit is made exact by [`settle`].
    pub(crate) fn rename(
        span: Span,
        written: &str,
        suggested: &str,
        applicability: Applicability,
    ) -> Fix {
        Fix {
            message: format!("replace `{written}` with `{suggested}`"),
            applicability,
            edits: vec![Edit {
                span,
                replacement: suggested.to_string(),
            }],
            pending: Some(written.to_string()),
        }
    }
}

/// Makes every pending fix exact against the text of its file: the edit covers the first
/// occurrence of the written word inside the diagnostic's span (whole, not part of a longer
/// word); a fix whose word is not there is dropped.
pub fn settle(diags: &mut [Diagnostic], map: &SourceMap) {
    for d in diags {
        let Some(fix) = &mut d.fix else { continue };
        let Some(written) = fix.pending.take() else {
            continue;
        };
        let text = map.files().get(d.file).map_or("", |f| f.text());
        let range = d.span.range();
        let exact = text.get(range.clone()).and_then(|inside| {
            let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
            inside.match_indices(written.as_str()).find_map(|(at, _)| {
                let before = inside[..at].chars().next_back();
                let after = inside[at + written.len()..].chars().next();
                (!written.is_empty() && !before.is_some_and(word) && !after.is_some_and(word))
                    .then(|| Span::new(range.start + at, range.start + at + written.len()))
            })
        });
        let single = fix.edits.len() == 1;
        match (exact, fix.edits.first_mut()) {
            (Some(span), Some(edit)) if single => edit.span = span,
            _ => d.fix = None,
        }
    }
}

/// What applying fixes to one text did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The text with the fixes applied.
    pub text: String,
    /// Indexes (into the fixes given) of those applied.
    pub applied: Vec<usize>,
    /// Indexes of those left out because an edit overlapped one applied before it.
    pub skipped: Vec<usize>,
}

/// Whether a fix of this applicability is applied when unsafe fixes are `allowed` or not.
pub fn applies(fix: &Fix, unsafe_allowed: bool) -> bool {
    fix.applicability == Applicability::Safe || unsafe_allowed
}

/// Applies fixes to `text`, in the order given: a fix is applied whole or not at all, and one
/// whose edits overlap (or touch out of range) an edit of a fix applied before it is skipped
/// (run the check again to apply it to the new text).
pub fn apply(text: &str, fixes: &[&Fix]) -> Applied {
    let mut taken: Vec<(Span, &str)> = Vec::new();
    let mut applied = Vec::new();
    let mut skipped = Vec::new();
    for (i, fix) in fixes.iter().enumerate() {
        let fits = fix.pending.is_none()
            && fix.edits.iter().all(|e| {
                e.span.end as usize <= text.len()
                    && text.is_char_boundary(e.span.start as usize)
                    && text.is_char_boundary(e.span.end as usize)
                    && !taken.iter().any(|(s, _)| overlaps(*s, e.span))
            })
            && !fix
                .edits
                .iter()
                .enumerate()
                .any(|(j, a)| fix.edits[j + 1..].iter().any(|b| overlaps(a.span, b.span)));
        if fits {
            taken.extend(fix.edits.iter().map(|e| (e.span, e.replacement.as_str())));
            applied.push(i);
        } else {
            skipped.push(i);
        }
    }
    taken.sort_by_key(|(s, _)| (s.start, s.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for (span, replacement) in taken {
        out.push_str(&text[at..span.start as usize]);
        out.push_str(replacement);
        at = span.end as usize;
    }
    out.push_str(&text[at..]);
    Applied {
        text: out,
        applied,
        skipped,
    }
}

/// Whether two edits conflict: they share a byte, or both insert at the same place, or one
/// inserts inside the other.
fn overlaps(a: Span, b: Span) -> bool {
    if a.is_empty() || b.is_empty() {
        return a.start == b.start
            || (a.start > b.start && a.start < b.end)
            || (b.start > a.start && b.start < a.end);
    }
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_apply_in_order_and_overlaps_wait() {
        let text = "Use flow \"Ad\" with:\nDepends on: craete\n";
        let a = Fix::replace(Span::new(10, 12), "Add", "a");
        let b = Fix::replace(Span::new(32, 38), "create", "b");
        let c = Fix::replace(Span::new(11, 13), "x", "c");
        let out = apply(text, &[&a, &b, &c]);
        assert_eq!(out.text, "Use flow \"Add\" with:\nDepends on: create\n");
        assert_eq!(out.applied, vec![0, 1]);
        assert_eq!(out.skipped, vec![2]);
    }

    #[test]
    fn pending_fixes_settle_on_the_word_or_go() {
        let mut map = SourceMap::new();
        let id = map.add(crate::source::SourceFile::new(
            "a.mcpr",
            "x: \"${nmae}\" nmaes\n",
        ));
        let mut d = Diagnostic::new(crate::diagnostics::Problem::NoTests, id, Span::new(3, 12));
        d.fix = Some(Fix::rename(
            Span::new(3, 12),
            "nmae",
            "name",
            Applicability::Safe,
        ));
        let mut gone = d.clone();
        gone.span = Span::new(13, 18);
        let mut both = [d, gone];
        settle(&mut both, &map);
        let fix = both[0].fix.as_ref().expect("settled");
        assert_eq!(fix.edits[0].span, Span::new(6, 10));
        assert!(both[1].fix.is_none(), "`nmae` is only part of `nmaes`");
    }

    #[test]
    fn renames_of_declared_names_are_unsafe_and_words_of_the_language_safe() {
        use crate::diagnostics::Problem;
        let at = |p: Problem| {
            Diagnostic::new(p, 0, Span::new(0, 2))
                .fix
                .map(|f| f.applicability)
        };
        let flow = Problem::UnknownFlow {
            name: "Ad".into(),
            suggestion: Some("Add".into()),
            library: None,
        };
        assert_eq!(at(flow), Some(Applicability::Unsafe));
        let rule = Problem::UnknownLintRule {
            code: "MCP05".into(),
            suggestion: Some("MCP005".into()),
        };
        assert_eq!(at(rule), Some(Applicability::Safe));
        let field = Problem::UnknownField {
            context: "a step".into(),
            field: "toool".into(),
            suggestion: Some("tool".into()),
            valid: vec!["tool".into()],
        };
        assert_eq!(at(field), Some(Applicability::Safe));
        assert!(applies(&Fix::replace(Span::at(0), "", "x"), false));
    }
}
