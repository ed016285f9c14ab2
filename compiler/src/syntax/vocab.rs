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
    let lower = line.to_lowercase();
    // Keep only the keyword-like prefix: stop at the first quote.
    let head = lower.split(['"', '\'']).next().unwrap_or("");
    // No opening phrase is longer than a few words.
    let words: Vec<&str> = head.split_whitespace().take(8).collect();
    let near = nearest(&words, vocabulary);
    near.letterwise.map(|(_, u)| u).or(near.by_words)
}

/// What is near a line's first words: the nearest opening phrase letter by letter, and by
/// words.
#[derive(Debug, Clone, Copy, Default)]
struct Near {
    letterwise: Option<(&'static str, &'static str)>,
    by_words: Option<&'static str>,
}

/// Most first words whose [`Near`] a thread remembers: the same misspelt line a thousand
/// times costs one search.
const REMEMBERED: usize = 4096;

thread_local! {
    static NEAR: std::cell::RefCell<std::collections::HashMap<(Vocabulary, String), Near>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`Near`] of `words`, remembered; a search not remembered is paid from the thread's
/// budget of suggestions ([`crate::names::take_suggestion_budget`]) and, past it, finds
/// nothing: a file of tens of thousands of different unknown lines is checked in time
/// proportional to its size, its first lines still getting their `Try:`.
fn nearest(words: &[&str], vocabulary: Vocabulary) -> Near {
    let key = (vocabulary, words.join(" "));
    if let Some(near) = NEAR.with(|m| m.borrow().get(&key).copied()) {
        return near;
    }
    let chars: usize = words.iter().map(|w| w.len() + 1).sum();
    if !crate::names::take_suggestion_budget(chars * vocabulary_chars(vocabulary)) {
        return Near::default();
    }
    let letterwise = letterwise(words, vocabulary);
    let near = Near {
        letterwise,
        // Only asked for when nothing is near letter by letter.
        by_words: letterwise
            .is_none()
            .then(|| by_words(words, vocabulary))
            .flatten(),
    };
    NEAR.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= REMEMBERED {
            m.clear();
        }
        m.insert(key, near);
    });
    near
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
    let head = line.split(['"', '\'']).next().unwrap_or("");
    let lower = head.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().take(8).collect();
    let (phrase, usage) = nearest(&words, vocabulary).letterwise?;
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
