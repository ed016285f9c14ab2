//! Rules about names shared by the syntax, the lowering, the diagnostics and the runtime:
//! how far apart two names are, which known name a misspelt one most likely meant ("did you
//! mean"), the slug of a test name (the id a test without `Id:` is known by), and a count
//! of things in words that agree in number ("1 tool", "2 tools").
//!
//! This module depends on nothing else in the crate, so every layer may use it.

/// A count and its noun in the number that agrees with it: `count(1, "tool")` is
/// "1 tool", `count(2, "tool")` "2 tools", `count(0, "success")` "0 successes",
/// `count(3, "entry")` "3 entries". Words whose plural is the same (`info`) are not counted
/// through it.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    let plural = if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
        format!("{noun}es")
    } else if let Some(stem) = noun
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{noun}s")
    };
    format!("{n} {plural}")
}

/// Levenshtein distance between two strings, counted in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The most work one call of [`closest`] does, in characters compared (a cell of a distance
/// table, a character lower-cased or counted): a name is compared with a few hundred long
/// candidates at most, and what was closest among those is the suggestion.
pub const CLOSEST_CALL_BUDGET: usize = 200_000;

/// The most work the calls of [`closest`] on one thread do between two calls of
/// [`reset_suggestion_budget`] (a compilation makes one at its start): past it no more
/// suggestions are made, so a file of thousands of misspelt long names is checked in time
/// proportional to its size, with the first of them still getting their `Try:`.
pub const CLOSEST_THREAD_BUDGET: usize = 10_000_000;

thread_local! {
    /// What is left of [`CLOSEST_THREAD_BUDGET`] on this thread.
    static SUGGESTION_BUDGET: std::cell::Cell<usize> =
        const { std::cell::Cell::new(CLOSEST_THREAD_BUDGET) };
}

/// Gives the calls of [`closest`] on this thread their whole budget again.
pub fn reset_suggestion_budget() {
    SUGGESTION_BUDGET.with(|b| b.set(CLOSEST_THREAD_BUDGET));
}

/// The candidate closest to `name` (compared without case), when it is close enough to be a
/// likely typo: at most a third of the longer name's characters apart, and at least 2. Ties
/// go to the earliest candidate. The search is bounded ([`CLOSEST_CALL_BUDGET`],
/// [`CLOSEST_THREAD_BUDGET`]): past its budget it answers with the closest candidate found
/// so far, or none.
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<String> {
    let thread_left = SUGGESTION_BUDGET.with(std::cell::Cell::get);
    let mut budget = thread_left.min(CLOSEST_CALL_BUDGET);
    let start = budget;
    let lower: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    let len = name.chars().count();
    budget = budget.saturating_sub(len);
    let mut best: Option<(usize, &str)> = None;
    let mut buf: Vec<char> = Vec::new();
    for c in candidates {
        if budget == 0 || best.is_some_and(|(d, _)| d == 0) {
            break;
        }
        let count = if c.is_ascii() {
            c.len()
        } else {
            c.chars().count()
        };
        budget = budget.saturating_sub(count / 8 + 1);
        let limit = (count.max(len) / 3).max(2);
        // A later candidate must be strictly closer to replace an earlier one.
        let bound = best.map_or(limit, |(d, _)| limit.min(d - 1));
        // The distance is at least the difference in length: skip what cannot be close
        // without comparing.
        if count.abs_diff(len) > bound {
            continue;
        }
        buf.clear();
        if c.is_ascii() {
            buf.extend(c.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            buf.extend(c.chars().flat_map(char::to_lowercase));
        }
        budget = budget.saturating_sub(buf.len());
        if let Some(d) = bounded_distance(&lower, &buf, bound, &mut budget) {
            best = Some((d, c));
        }
    }
    let spent = start - budget;
    SUGGESTION_BUDGET.with(|b| b.set(thread_left.saturating_sub(spent)));
    best.map(|(_, c)| c.to_string())
}

/// The Levenshtein distance of `a` and `b` when it is at most `k`, else `None`: their common
/// ends set aside, then only the cells of the table within `k` of its diagonal, stopping
/// when a whole row is past `k`. Each cell filled is taken from `budget`; `None` when it
/// runs out.
fn bounded_distance(a: &[char], b: &[char], k: usize, budget: &mut usize) -> Option<usize> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[head..], &b[head..]);
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - tail], &b[..b.len() - tail]);
    *budget = budget.saturating_sub((head + tail) / 8);
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > k {
        return None;
    }
    if n == 0 || m == 0 {
        return Some(n.max(m));
    }
    let past = k + 1;
    let mut prev: Vec<usize> = (0..=m).map(|j| j.min(past)).collect();
    let mut cur = vec![past; m + 1];
    for i in 1..=n {
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(m);
        let width = (hi + 1).saturating_sub(lo);
        if *budget < width {
            *budget = 0;
            return None;
        }
        *budget -= width;
        cur[0] = i.min(past);
        cur[lo - 1] = if lo == 1 { cur[0] } else { past };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let v = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(past);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if hi < m {
            cur[hi + 1] = past;
        }
        if row_min > k {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[m] <= k).then_some(prev[m])
}

/// Levenshtein distance where swapping two neighbouring characters counts as one edit
/// (optimal string alignment): `lsit` is one edit from `list`.
pub fn typo_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// [`phrase_closeness`]: words matched, then the edit cost reversed (greater is closer).
pub type Closeness = (usize, std::cmp::Reverse<usize>);

/// How close a line's opening words are to a phrase, word by word: the words matched in order
/// (a word matches when it is at most a quarter of its characters — at least one — away,
/// a swap of two neighbours counting as one:
/// `tool` matches `tools`, `tools` does not match `tasks`), then the cost of the word-level
/// edit that turns one into the other (a substitution costs the words' character distance,
/// an inserted or dropped word its length). Greater is closer: compare with `>`.
///
/// `List tools` is closer to `list all tools` (2 words matched, cost 3) than to `list tasks`
/// (1 word, cost 3).
pub fn phrase_closeness(words: &[&str], phrase: &[&str]) -> Closeness {
    let len = |w: &str| w.chars().count();
    // The distance of two words, when it can be small: a distance is at least the difference
    // in length, so a long word is never compared letter by letter (a word of a megabyte
    // against every phrase would take minutes).
    let distance = |a: &str, b: &str| {
        let (la, lb) = (len(a), len(b));
        (la.abs_diff(lb) <= (la.max(lb) / 4).max(1)).then(|| typo_distance(a, b))
    };
    // (matched, cost) of the best alignment of words[..i] with phrase[..j].
    let mut table = vec![vec![(0usize, 0usize); phrase.len() + 1]; words.len() + 1];
    for (j, p) in phrase.iter().enumerate() {
        table[0][j + 1] = (0, table[0][j].1 + len(p));
    }
    for (i, w) in words.iter().enumerate() {
        table[i + 1][0] = (0, table[i][0].1 + len(w));
        let lower = w.to_lowercase();
        for (j, p) in phrase.iter().enumerate() {
            let (m, c) = table[i][j];
            let limit = (len(&lower).max(len(p)) / 4).max(1);
            let diag = match distance(&lower, p) {
                Some(d) if d <= limit && d < len(p) => (m + 1, c + d),
                Some(d) => (m, c + d),
                None => (m, c + len(&lower).max(len(p))),
            };
            let (m, c) = table[i][j + 1];
            let drop = (m, c + len(w));
            let (m, c) = table[i + 1][j];
            let insert = (m, c + len(p));
            let better = |a: (usize, usize), b: (usize, usize)| {
                if (a.0, std::cmp::Reverse(a.1)) >= (b.0, std::cmp::Reverse(b.1)) {
                    a
                } else {
                    b
                }
            };
            table[i + 1][j + 1] = better(better(diag, drop), insert);
        }
    }
    let (m, c) = table[words.len()][phrase.len()];
    (m, std::cmp::Reverse(c))
}

/// The slug of a test name, the reference rule for test ids: the name lower-cased, every run
/// of characters other than ASCII letters and digits replaced by one `-`, with no `-` at
/// either end; `test` when nothing is left.
///
/// `Create customer` → `create-customer`, `01_simple` → `01-simple`, `!!!` → `test`.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    if out.is_empty() { "test".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(0, "tool"), "0 tools");
        assert_eq!(count(2, "resource template"), "2 resource templates");
        assert_eq!(count(3, "success"), "3 successes");
        assert_eq!(count(2, "entry"), "2 entries");
        assert_eq!(count(2, "day"), "2 days");
    }

    #[test]
    fn distances_count_characters() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ünï", "uni"), 2);
        assert_eq!(edit_distance("abc", ""), 3);
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            closest("create-custmer", ["create-customer", "other"]).as_deref(),
            Some("create-customer")
        );
        assert_eq!(closest("zzz", ["create-customer"]), None);
        assert_eq!(closest("NAME", ["name", "nmae"]).as_deref(), Some("name"));
        // Ties go to the earliest; a closer later one wins.
        assert_eq!(closest("abcd", ["abxd", "abcx"]).as_deref(), Some("abxd"));
        assert_eq!(
            closest("abcdef", ["abxdex", "abcdex"]).as_deref(),
            Some("abcdex")
        );
    }

    #[test]
    fn bounded_distances_agree_with_the_whole_table() {
        let words = [
            "",
            "a",
            "ab",
            "kitten",
            "sitting",
            "flow one",
            "flow-one",
            "one flow",
            "abcdefghij",
            "ghijabcdef",
            "aaaaab",
            "baaaaa",
            "ünïcödé",
            "unicode",
        ];
        for a in words {
            for b in words {
                let full = edit_distance(a, b);
                let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                for k in 0..12 {
                    let mut budget = usize::MAX;
                    let bounded = bounded_distance(&ca, &cb, k, &mut budget);
                    assert_eq!(bounded, (full <= k).then_some(full), "{a:?} {b:?} {k}");
                }
            }
        }
    }

    #[test]
    fn a_search_past_its_budget_stops() {
        let long: Vec<String> = (0..10_000)
            .map(|i| format!("{i:05}{}", "x".repeat(300)))
            .collect();
        let started = std::time::Instant::now();
        let _ = closest(
            &format!("{}y", "x".repeat(305)),
            long.iter().map(String::as_str),
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn phrases_are_compared_word_by_word() {
        let close = |line: &str, phrase: &str| {
            let words: Vec<&str> = line.split(' ').collect();
            let phrase: Vec<&str> = phrase.split(' ').collect();
            phrase_closeness(&words, &phrase)
        };
        assert!(close("List tools", "list all tools") > close("List tools", "list tasks"));
        assert!(close("List prompt", "list all prompts") > close("List prompt", "list tasks"));
        assert!(close("Get tsk", "get task") > close("Get tsk", "get prompt"));
        assert_eq!(
            close("list all tools", "list all tools"),
            (3, std::cmp::Reverse(0))
        );
        assert!(close("Lsit tools", "list all tools") > close("Lsit tools", "list tasks"));
        assert_eq!(typo_distance("lsit", "list"), 1);
        assert_eq!(typo_distance("kitten", "sitting"), 3);
        // A one-letter word does not match a two-letter one by distance alone.
        assert_eq!(close("a", "to").0, 0);
    }

    #[test]
    fn slugs_match_the_reference_rule() {
        assert_eq!(slug("Create customer"), "create-customer");
        assert_eq!(slug("  Ünïcode -- Test 2! "), "n-code-test-2");
        assert_eq!(slug("!!!"), "test");
        assert_eq!(slug(""), "test");
        assert_eq!(slug("01_simple"), "01-simple");
        assert_eq!(slug("-a-"), "a");
        // The Kelvin sign lower-cases to an ASCII `k`; a dotted capital I to `i` and a
        // combining dot.
        assert_eq!(slug("\u{212A}elvin İx"), "kelvin-i-x");
    }

    /// The rule the legacy lowering and the runtime used to spell out on their own: push a
    /// `-` for every other character unless one is already last, then trim the ends.
    fn slug_by_trimming(name: &str) -> String {
        let mut out = String::new();
        for c in name.to_lowercase().chars() {
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                out.push(c);
            } else if !out.ends_with('-') {
                out.push('-');
            }
        }
        let t = out.trim_matches('-');
        if t.is_empty() {
            "test".into()
        } else {
            t.into()
        }
    }

    #[test]
    fn both_spellings_of_the_slug_rule_agree() {
        let samples = [
            "Create customer",
            "  Ünïcode -- Test 2! ",
            "ΣΑΣ final sigma ΟΔΟΣ",
            "\u{212A}\u{130}x",
            "a--b__c  d",
            "---",
            "Tab\there",
            "日本語 test 1",
            "x-",
            "-x",
        ];
        for s in samples {
            assert_eq!(slug(s), slug_by_trimming(s), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_spellings_agree_on_any_text(s in "\\PC*") {
            proptest::prop_assert_eq!(slug(&s), slug_by_trimming(&s));
        }
    }
}
