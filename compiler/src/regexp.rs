//! Regular expressions: one dialect, ECMAScript (ECMA-262 with the `u` flag, the dialect of
//! JSON Schema `pattern` and of the language's first implementation), through `regress`.
//! The compiler checks every pattern a suite writes with [`check_template`]; the runtime
//! matches with [`compile`] — the same engine, so what `check` accepts is what runs, and
//! look-ahead, look-behind and back-references work.

/// The flags every pattern is compiled with: Unicode mode.
const FLAGS: &str = "u";

/// A pattern that does not compile, with the engine's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// Why, in the engine's words (one line).
    pub reason: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern(regress::Regex);

impl Pattern {
    /// Whether the pattern matches somewhere in `text` (a search, as JavaScript's `test`).
    pub fn is_match(&self, text: &str) -> bool {
        self.0.find(text).is_some()
    }
}

/// Compiles a pattern (no `${…}` left in it).
pub fn compile(pattern: &str) -> Result<Pattern, PatternError> {
    regress::Regex::with_flags(pattern, FLAGS)
        .map(Pattern)
        .map_err(|e| PatternError {
            reason: e
                .text
                .lines()
                .next()
                .unwrap_or("invalid pattern")
                .to_string(),
        })
}

/// Checks a pattern as a suite writes it, before run time: each `${…}` reference, which is
/// interpolated at run time, stands for a plain letter, so `^${prefix}-[0-9]+$` is checked
/// as `^a-[0-9]+$`. The outcome is remembered on the calling thread (up to
/// [`REMEMBERED`] patterns): a suite repeats its patterns, in every test and again when it
/// is lowered, and compiling one costs more than the rest of its statement.
pub fn check_template(pattern: &str) -> Result<(), PatternError> {
    use foldhash::{HashMap, HashMapExt};
    use std::cell::RefCell;
    thread_local! {
        static CHECKED: RefCell<HashMap<String, Result<(), PatternError>>> =
            RefCell::new(HashMap::new());
    }
    if let Some(known) = CHECKED.with(|c| c.borrow().get(pattern).cloned()) {
        return known;
    }
    let outcome = check_template_now(pattern);
    CHECKED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= REMEMBERED {
            c.clear();
        }
        c.insert(pattern.to_string(), outcome.clone());
    });
    outcome
}

/// How many patterns [`check_template`] remembers per thread.
const REMEMBERED: usize = 1024;

fn check_template_now(pattern: &str) -> Result<(), PatternError> {
    if !crate::values::has_open(pattern) {
        return compile(pattern).map(|_| ());
    }
    let mut plain = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(at) = crate::values::find_open(rest, 0) {
        plain.push_str(&rest[..at]);
        match rest[at..].find('}') {
            Some(close) => {
                plain.push('a');
                rest = &rest[at + close + 1..];
            }
            None => {
                plain.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    plain.push_str(rest);
    compile(&plain).map(|_| ())
}

/// The first group of `pattern` that repeats without bound something that itself repeats
/// without bound (`(a+)+`, `(?:\w*\s)*`, `(x{2,})+`), as written: such a pattern may try
/// exponentially many ways to match before it fails (catastrophic backtracking). A cheap
/// reading of the text, no parse: escapes and character classes are stepped over.
pub fn nested_unbounded_quantifier(pattern: &str) -> Option<&str> {
    // Per open group: where it starts, and whether something inside repeats without bound.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let bytes = pattern.as_bytes();
    let mut i = 0;
    // An unbounded quantifier starting at `at`: its length.
    let unbounded = |at: usize| -> Option<usize> {
        match bytes.get(at)? {
            b'*' | b'+' => Some(1),
            b'{' => {
                let close = at + pattern[at..].find('}')?;
                let inner = &pattern[at + 1..close];
                let (low, high) = inner.split_once(',')?;
                (!low.is_empty() && low.bytes().all(|b| b.is_ascii_digit()) && high.is_empty())
                    .then_some(close + 1 - at)
            }
            _ => None,
        }
    };
    while i < bytes.len() {
        // A group closing, or the end of one atom (an escape, a class, a character).
        if bytes[i] == b'(' {
            open.push((i, false));
            i += 1;
            continue;
        }
        let mut inner = false;
        let mut start = i;
        match bytes[i] {
            b')' => {
                (start, inner) = open.pop().unwrap_or((i, false));
                i += 1;
            }
            b'\\' => i += 2,
            b'[' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b']' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => i += 1,
        }
        i = i.min(bytes.len());
        let repeated = unbounded(i);
        if let Some(len) = repeated {
            if inner {
                return pattern.get(start..i + len);
            }
            i += len;
        }
        if (repeated.is_some() || inner)
            && let Some(outer) = open.last_mut()
        {
            outer.1 = true;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecmascript_features_compile_and_match() {
        for (pattern, text, want) in [
            (r"^C-[0-9]+$", "C-12", true),
            (r"(?=a)a", "ba", true),
            (r"(?<=a)b", "ab", true),
            (r"(?<!a)b", "ab", false),
            (r"(a)\1", "aa", true),
            (r"^\p{Lu}", "Émile", true),
            (r"é.$", "xé😀", true),
        ] {
            assert_eq!(compile(pattern).unwrap().is_match(text), want, "{pattern}");
        }
    }

    #[test]
    fn invalid_patterns_say_why() {
        for p in ["[unclosed", "(", "a**", r"\k<nope>"] {
            let e = compile(p).unwrap_err();
            assert!(!e.reason.is_empty(), "{p}");
        }
    }

    #[test]
    fn nested_unbounded_quantifiers_are_found() {
        for (p, found) in [
            ("^(a+)+$", Some("(a+)+")),
            (r"(\w+\s?)*$", Some(r"(\w+\s?)*")),
            ("x(?:(b*)c)*", Some("(?:(b*)c)*")),
            ("(a{2,})+", Some("(a{2,})+")),
            ("^(a+)$", None),
            ("(a|b)+", None),
            ("(a{2,3})+", None),
            (r"[(a+)]+", None),
            (r"\(a+\)+", None),
            ("^[0-9]+-[a-z]*$", None),
        ] {
            assert_eq!(nested_unbounded_quantifier(p), found, "{p}");
        }
    }

    #[test]
    fn references_are_checked_as_letters() {
        assert!(check_template("^${prefix}-[0-9]+$").is_ok());
        assert!(check_template("${a}${b}").is_ok());
        assert!(check_template("^${x}[").is_err());
    }
}
