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
    let mut best: Option<(usize, usize, &'static str)> = None;
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
        if d <= limit && best.is_none_or(|(bd, bn, _)| d < bd || (d == bd && n > bn)) {
            best = Some((d, n, usage));
        }
    }
    best.map(|(_, _, u)| u)
        .or_else(|| by_words(&words, vocabulary))
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
}
