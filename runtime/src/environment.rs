//! The environment a command was started in, read once by the command
//! ([`Environment::of_process`]) and carried in the run's context: `${env.NAME}`, the
//! variables a stdio server inherits, the credential-like values the redactor masks and
//! `${env.…}` in data-source settings all read this copy, so the library never reads the
//! process environment on its own and a test (or the driver) can hand it any environment.

use std::collections::BTreeMap;
use std::sync::Arc;

/// A set of environment variables (names and values that are valid Unicode).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Environment(Arc<BTreeMap<String, String>>);

impl Environment {
    /// The process's environment as it is now (variables whose name or value is not valid
    /// Unicode are left out). Only the commands call this, once per command.
    pub fn of_process() -> Environment {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect()
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The value of `name` when it is set and not blank.
    pub fn non_empty(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|v| !v.trim().is_empty())
    }

    /// Every variable, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// A lookup function over this environment (owned values), for code that takes one.
    pub fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |name| self.get(name).map(str::to_string)
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Environment {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Environment {
        Environment(Arc::new(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        ))
    }
}

/// Names only: values may be secrets.
impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Environment;

    #[test]
    fn lookups_and_debug_never_show_values() {
        let env: Environment = [("TOKEN", "s3cret"), ("EMPTY", " ")].into_iter().collect();
        assert_eq!(env.get("TOKEN"), Some("s3cret"));
        assert_eq!(env.non_empty("EMPTY"), None);
        assert_eq!(env.get("MISSING"), None);
        let shown = format!("{env:?}");
        assert!(
            shown.contains("TOKEN") && !shown.contains("s3cret"),
            "{shown}"
        );
    }
}
