//! Keeping credentials out of servers' environments and out of reports.

use std::collections::BTreeMap;

/// Name fragments that mark an environment variable as a credential.
pub const CREDENTIAL_MARKERS: &[&str] =
    &["TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL", "AUTH"];

/// True when a variable's name looks like a credential (case-insensitive).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_MARKERS.iter().any(|m| upper.contains(m))
}

/// The environment a server gets: the runner's own minus credential-like variables, plus
/// what the suite passes explicitly (explicit values win, credential-like or not).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerEnv {
    /// The variables to set.
    pub vars: BTreeMap<String, String>,
    /// Names of the runner's variables withheld because they look like credentials (never
    /// their values).
    pub withheld: Vec<String>,
}

/// Builds a server environment from the runner's environment and explicit additions.
pub fn server_env<I>(runner_env: I, explicit: &BTreeMap<String, String>) -> ServerEnv
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut out = ServerEnv::default();
    for (name, value) in runner_env {
        if explicit.contains_key(&name) {
            continue;
        }
        if looks_like_credential(&name) {
            out.withheld.push(name);
        } else {
            out.vars.insert(name, value);
        }
    }
    for (name, value) in explicit {
        out.vars.insert(name.clone(), value.clone());
    }
    out.withheld.sort();
    out
}

/// The runner's environment as (name, value) pairs, skipping names or values that are not
/// valid Unicode.
pub fn runner_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_credentials_unless_explicit() {
        let runner = vec![
            ("PATH".to_string(), "/bin".to_string()),
            ("GITHUB_TOKEN".to_string(), "ghp_x".to_string()),
            ("aws_secret_access_key".to_string(), "s".to_string()),
            ("API_KEY".to_string(), "k".to_string()),
            ("HOME".to_string(), "/root".to_string()),
            ("OAUTH_THING".to_string(), "o".to_string()),
        ];
        let mut explicit = BTreeMap::new();
        explicit.insert("API_KEY".to_string(), "given".to_string());
        let env = server_env(runner, &explicit);
        assert_eq!(env.vars.get("PATH").map(String::as_str), Some("/bin"));
        assert_eq!(env.vars.get("API_KEY").map(String::as_str), Some("given"));
        assert!(!env.vars.contains_key("GITHUB_TOKEN"));
        assert_eq!(
            env.withheld,
            vec!["GITHUB_TOKEN", "OAUTH_THING", "aws_secret_access_key"]
        );
    }
}
