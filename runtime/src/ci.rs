//! Whether a CI service runs mcpr: the one rule for everything the `CI` variable changes
//! (no progress bar, no watch screen, no question at the terminal, missing snapshots fail).
//! The command applies it once to the environment it was started in
//! (`context::RunContext`); nothing in the library reads `CI` itself.

/// Whether a value of `CI` means a CI service: set, not empty, and not `false` or `0` (any
/// case), so `CI=1` and `CI=true` both count.
pub fn is_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        !v.is_empty() && !v.eq_ignore_ascii_case("false") && v != "0"
    })
}

#[cfg(test)]
mod tests {
    use super::is_ci;

    #[test]
    fn one_rule_for_every_value() {
        for yes in ["true", "1", "yes", "TRUE", "github"] {
            assert!(is_ci(Some(yes)), "{yes}");
        }
        for no in ["", " ", "false", "FALSE", "0"] {
            assert!(!is_ci(Some(no)), "{no:?}");
        }
        assert!(!is_ci(None));
    }
}
