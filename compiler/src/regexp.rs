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
    use std::cell::RefCell;
    use std::collections::HashMap;
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
    fn references_are_checked_as_letters() {
        assert!(check_template("^${prefix}-[0-9]+$").is_ok());
        assert!(check_template("${a}${b}").is_ok());
        assert!(check_template("^${x}[").is_err());
    }
}
