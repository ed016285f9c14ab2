//! "Did you mean": the statement form whose opening phrase is nearest to a line that
//! matches none. The phrases come from the statement table ([`super::statements`]).

use super::statements::{STATEMENTS, VERSION_HEADER, Vocabulary};

/// The opening phrases of a vocabulary with their suggested usage, in table order (the
/// version header first among the statements).
pub fn openings(
    vocabulary: Vocabulary,
) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    let header = (vocabulary == Vocabulary::Statements).then_some(&VERSION_HEADER);
    header.into_iter().chain(
        STATEMENTS
            .iter()
            .filter(move |s| s.vocabulary == vocabulary)
            .flat_map(|s| s.openings),
    )
}

/// The usage of the form whose opening keywords are closest to the start of
/// `line`, if it is close enough to be a plausible typo.
pub fn suggest(line: &str, vocabulary: Vocabulary) -> Option<&'static str> {
    Suggestions::new().suggest(line, vocabulary)
}

/// A line that matches no statement (or data phrase), waiting for its diagnostic: the
/// suggestion is searched when the file's unknown lines are settled in file order
/// ([`Suggestions::settle`]), so it does not depend on how the file was cut for threads.
#[derive(Debug, Clone, Copy)]
pub struct Unknown {
    /// The line, trimmed.
    pub span: crate::source::Span,
    /// Whose phrases to suggest.
    pub vocabulary: Vocabulary,
    /// Where the line stands ("a test", "the document level"), for the message.
    pub context: &'static str,
}

/// What is near a line's first words: the nearest opening phrase letter by letter, and by
/// words.
#[derive(Debug, Clone, Copy, Default)]
struct Near {
    letterwise: Option<(&'static str, &'static str)>,
    by_words: Option<&'static str>,
}

/// The most work (characters of a line times characters of the vocabulary's phrases) the
/// searches for one file's unknown lines do: past it a line gets no `Try:`, so a file of
/// tens of thousands of different unknown lines is checked in time proportional to its
/// size, its first lines still getting their suggestion.
pub const SEARCH_BUDGET: usize = 10_000_000;

/// The suggestions of one file's unknown lines: each different line's first words searched
/// once (the same misspelt line a thousand times costs one search), the searches paid from
/// [`SEARCH_BUDGET`] in file order.
#[derive(Debug)]
pub struct Suggestions {
    near: std::collections::HashMap<(Vocabulary, String), Near>,
    budget: usize,
}

impl Default for Suggestions {
    fn default() -> Self {
        Suggestions::new()
    }
}

impl Suggestions {
    /// No search made yet, the whole budget left.
    pub fn new() -> Suggestions {
        Suggestions {
            near: std::collections::HashMap::new(),
            budget: SEARCH_BUDGET,
        }
    }

    /// The diagnostics of `unknown` lines of `file` (in file order), with their
    /// suggestions and, for a plain respelling of the first words, a fix.
    pub fn settle(
        &mut self,
        file: &crate::source::SourceFile,
        file_id: usize,
        unknown: impl IntoIterator<Item = Unknown>,
        diags: &mut impl crate::diagnostics::Sink,
    ) {
        use crate::diagnostics::{Diagnostic, Fix, Problem};
        for u in unknown {
            let text = &file.text()[u.span.range()];
            let suggestion = self.suggest(text, u.vocabulary);
            let problem = match u.vocabulary {
                Vocabulary::DataPhrases => Problem::UnknownDataPhrase { suggestion },
                _ => Problem::UnknownStatement {
                    context: u.context,
                    suggestion,
                },
            };
            let mut d = Diagnostic::new(problem, file_id, u.span);
            if let Some((len, words)) = self.respell(text, u.vocabulary) {
                let at = u.span.start as usize;
                let message = format!("write `{words}`");
                let span = crate::source::Span::new(at, at + len);
                d = d.with_fix(Fix::replace(span, words, message));
            }
            diags.push(d);
        }
    }

    /// [`suggest`], remembering and paying for the search.
    pub fn suggest(&mut self, line: &str, vocabulary: Vocabulary) -> Option<&'static str> {
        let lower = line.to_lowercase();
        // Keep only the keyword-like prefix: stop at the first quote.
        let head = lower.split(['"', '\'']).next().unwrap_or("");
        // No opening phrase is longer than a few words.
        let words: Vec<&str> = head.split_whitespace().take(8).collect();
        let near = self.nearest(&words, vocabulary);
        near.letterwise.map(|(_, u)| u).or(near.by_words)
    }

    /// [`respell`], remembering and paying for the search.
    pub fn respell(&mut self, line: &str, vocabulary: Vocabulary) -> Option<(usize, String)> {
        let head = line.split(['"', '\'']).next().unwrap_or("");
        let lower = head.to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().take(8).collect();
        let letterwise = self.nearest(&words, vocabulary).letterwise;
        respelling(line, head, letterwise)
    }

    /// [`Near`] of `words`: remembered, or searched when the budget allows it.
    fn nearest(&mut self, words: &[&str], vocabulary: Vocabulary) -> Near {
        let key = (vocabulary, words.join(" "));
        if let Some(near) = self.near.get(&key) {
            return *near;
        }
        let chars: usize = words.iter().map(|w| w.len() + 1).sum();
        let Some(left) = self
            .budget
            .checked_sub(chars.saturating_mul(vocabulary_chars(vocabulary)))
        else {
            return Near::default();
        };
        self.budget = left;
        let letterwise = letterwise(words, vocabulary);
        let near = Near {
            letterwise,
            // Only asked for when nothing is near letter by letter.
            by_words: letterwise
                .is_none()
                .then(|| by_words(words, vocabulary))
                .flatten(),
        };
        self.near.insert(key, near);
        near
    }
}

/// The characters of a vocabulary's opening phrases, all together: what one search compares
/// a character of the line with, about.
fn vocabulary_chars(vocabulary: Vocabulary) -> usize {
    openings(vocabulary).map(|(p, _)| p.len()).sum()
}

/// The opening phrase and usage nearest to the first words of a line, letter by letter.
fn letterwise(words: &[&str], vocabulary: Vocabulary) -> Option<(&'static str, &'static str)> {
    let mut best: Option<(usize, usize, &'static str, &'static str)> = None;
    for (phrase, usage) in openings(vocabulary) {
        let n = phrase.split(' ').count();
        if words.len() < n.min(1) {
            continue;
        }
        let candidate = words.iter().take(n).copied().collect::<Vec<_>>().join(" ");
        let limit = (phrase.len() / 3).max(1);
        // The distance is at least the difference in length: a word of a megabyte is not
        // compared character by character with every phrase (that took minutes).
        if candidate.chars().count().abs_diff(phrase.chars().count()) > limit {
            continue;
        }
        let d = crate::names::edit_distance(&candidate, phrase);
        if d <= limit && best.is_none_or(|(bd, bn, _, _)| d < bd || (d == bd && n > bn)) {
            best = Some((d, n, phrase, usage));
        }
    }
    best.map(|(_, _, p, u)| (p, u))
}

/// The mechanical fix of a line that matches no form but whose first words are a near
/// miss of one form's opening phrase (`Cal tool "add"`): the byte length of the misspelt
/// words at the start of `line` and the words to write instead, spelt as the form's usage
/// spells them (`Call tool`). `None` when the suggestion is not a plain respelling.
pub fn respell(line: &str, vocabulary: Vocabulary) -> Option<(usize, String)> {
    Suggestions::new().respell(line, vocabulary)
}

/// [`respell`] of `line` (whose keyword-like prefix is `head`) given the nearest phrase
/// letter by letter.
fn respelling(
    line: &str,
    head: &str,
    letterwise: Option<(&'static str, &'static str)>,
) -> Option<(usize, String)> {
    let (phrase, usage) = letterwise?;
    let n = phrase.split(' ').count();
    let right: Vec<&str> = usage.split_whitespace().take(n).collect();
    if right.len() < n || right.join(" ").to_lowercase() != phrase {
        return None;
    }
    // The end of the n-th word of the line as written.
    let mut end = None;
    let mut seen = 0;
    let mut in_word = false;
    for (i, c) in head.char_indices() {
        if c.is_whitespace() {
            if in_word {
                seen += 1;
                if seen == n {
                    end = Some(i);
                    break;
                }
            }
            in_word = false;
        } else {
            in_word = true;
        }
    }
    let end = match end {
        Some(e) => e,
        None if in_word && seen + 1 == n => head.len(),
        None => return None,
    };
    let replacement = right.join(" ");
    (line[..end] != replacement).then_some((end, replacement))
}

/// When no phrase is near letter by letter (`Lsit tools`), the phrase that shares most of its
/// words with the line (more than half of them, a swap of two letters counting as one edit),
/// the closest word-level edit first.
fn by_words(words: &[&str], vocabulary: Vocabulary) -> Option<&'static str> {
    let mut best: Option<(crate::names::Closeness, &'static str)> = None;
    for (phrase, usage) in openings(vocabulary) {
        let phrase: Vec<&str> = phrase.split(' ').collect();
        // Only words that could be the phrase's: a long line is not compared word by word.
        let line: Vec<&str> = words.iter().take(phrase.len() + 1).copied().collect();
        let c = crate::names::phrase_closeness(&line, &phrase);
        // The line starts with the phrase's first word (give or take a typo).
        let starts =
            crate::names::phrase_closeness(&line[..line.len().min(1)], &phrase[..1]).0 == 1;
        if starts && 2 * c.0 > phrase.len() && best.is_none_or(|(b, _)| c > b) {
            best = Some((c, usage));
        }
    }
    best.map(|(_, u)| u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_nearby_forms() {
        assert_eq!(
            suggest("Cal tool \"x\"", Vocabulary::Statements),
            Some("Call tool \"NAME\" with:")
        );
        assert_eq!(
            suggest("Expcet \"x\" equals 2", Vocabulary::Statements),
            Some("Expect \"PATH\" equals VALUE")
        );
        assert_eq!(
            suggest("Subscribe too resource \"u\"", Vocabulary::Statements),
            Some("Subscribe to resource \"URI\"")
        );
        assert_eq!(
            suggest("Frobnicate the server", Vocabulary::Statements),
            None
        );
        // Word by word when letters alone are too far: a swapped pair and a dropped word.
        assert_eq!(
            suggest("Lsit tools", Vocabulary::Statements),
            Some("List all tools")
        );
    }

    #[test]
    fn respells_near_misses_only() {
        assert_eq!(
            respell("Cal tool \"x\" with:", Vocabulary::Statements),
            Some((8, "Call tool".to_string()))
        );
        assert_eq!(
            respell("expcet \"x\" equals 2", Vocabulary::Statements),
            Some((6, "Expect".to_string()))
        );
        assert_eq!(respell("Lsit tools", Vocabulary::Statements), None);
        assert_eq!(respell("Frobnicate it", Vocabulary::Statements), None);
    }
}
