//! Keeping credentials out of servers' environments and out of reports.
//!
//! A server started as a command gets a **minimal environment**: the base variables
//! ([`BASE_VARS`]) the runner has, what the suite sets in `env:`, and whatever the suite
//! asks to inherit (`inherit env`: all, or names and globs). Every other variable of the
//! runner stays with the runner; those that look like credentials are named (never their
//! values) in the terminal header and the JSON report.
//!
//! Values that look like credentials wherever they come from (userinfo in a URL, a JWT, a
//! well-known token prefix) are masked in every output by [`credential_spans`], on top of
//! the secrets a suite names, which a [`Redactor`] holds with those the run learns
//! ([`learn`]). This module reads nothing else of the runtime but [`crate::values`]' URL
//! encoding: every layer may mask text with it (a test's result is masked by
//! `exec::TestResult::redacted`).

mod redactor;

pub use redactor::{Learned, MASK, Redactor};

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// The runner's variables every server gets (when the runner has them). `*` is a glob.
/// Besides the session's basics, the Rust toolchain's settings (`CARGO_*`, `RUSTUP_*`): a
/// `Server: cargo run …` with other settings than the build before it would rebuild the
/// server on its first start, and miss its handshake deadline. A name that looks like a
/// credential (`CARGO_REGISTRY_TOKEN`) is never passed through a glob.
pub const BASE_VARS: &[&str] = &[
    "PATH", "HOME", "LANG", "LC_*", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM", "CARGO_*",
    "RUSTUP_*",
];

/// Name fragments that mark an environment variable as a credential, anywhere in its name.
pub const CREDENTIAL_MARKERS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "OAUTH",
    "AUTHTOKEN",
    "AUTHORIZATION",
    "APIKEY",
    "API_KEY",
    "PRIVATE",
    "JWT",
    "WEBHOOK",
    "COOKIE",
    "SESSION_KEY",
];

/// Words of a name (split at `_`, `-` and `.`) that mark it as a credential: `DB_PASS`,
/// `GH_PAT`, `SIGNING_KEY`, `DB_PWD`, `SENTRY_DSN`, `GITHUB_AUTH` (but not `…_AUTHORS`).
const CREDENTIAL_WORDS: &[&str] = &[
    "KEY", "PASS", "PAT", "PWD", "DSN", "SALT", "AUTH", "AUTHN", "AUTHZ",
];

/// Names that contain a marker but are not credentials.
const NOT_CREDENTIALS: &[&str] = &["PWD", "OLDPWD", "SSH_AUTH_SOCK", "XDG_SESSION_TYPE"];

/// True when a variable's name looks like a credential (case-insensitive).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if NOT_CREDENTIALS.contains(&upper.as_str()) {
        return false;
    }
    CREDENTIAL_MARKERS.iter().any(|m| upper.contains(m))
        || upper
            .split(['_', '-', '.'])
            .any(|w| CREDENTIAL_WORDS.contains(&w))
}

/// True when a variable's name or its value looks like a credential.
pub fn looks_like_credential_var(name: &str, value: &str) -> bool {
    looks_like_credential(name) || !credential_spans(value).is_empty()
}

/// Which of the runner's variables a server gets besides the base set and its `env:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Inherit {
    /// The base set alone (the default).
    #[default]
    Base,
    /// The runner's whole environment.
    All,
    /// The runner's whole environment but the variables that look like credentials (by
    /// name or value), which are withheld and named.
    AllButCredentials,
    /// These names and `*` globs too.
    Names(Vec<String>),
}

impl Inherit {
    fn passes(&self, name: &str) -> bool {
        BASE_VARS
            .iter()
            .any(|p| name_matches(p, name) && (!p.contains('*') || !looks_like_credential(name)))
            || match self {
                Inherit::Base => false,
                Inherit::All | Inherit::AllButCredentials => true,
                Inherit::Names(names) => names.iter().any(|p| name_matches(p, name)),
            }
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() >= head.len()
                && name.starts_with(head)
                && name_matches_rest(tail, &name[head.len()..])
        }
    }
}

fn name_matches_rest(pattern: &str, rest: &str) -> bool {
    if pattern.is_empty() {
        return true;
    }
    (0..=rest.len())
        .filter(|i| rest.is_char_boundary(*i))
        .any(|i| name_matches(pattern, &rest[i..]))
}

/// The environment a server gets, and what it does not get.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerEnv {
    /// The variables to set.
    pub vars: BTreeMap<String, String>,
    /// Names of the runner's variables kept from the server that look like credentials (by
    /// name or value), sorted; never their values.
    pub withheld: Vec<String>,
}

/// Builds a server environment from the runner's environment, the inherit policy and the
/// suite's explicit variables (which always pass, credential-like or not).
pub fn server_env<I>(
    runner_env: I,
    explicit: &BTreeMap<String, String>,
    inherit: &Inherit,
) -> ServerEnv
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut out = ServerEnv::default();
    for (name, value) in runner_env {
        if explicit.contains_key(&name) {
            continue;
        }
        let credential = looks_like_credential_var(&name, &value);
        if inherit.passes(&name) && !(credential && *inherit == Inherit::AllButCredentials) {
            out.vars.insert(name, value);
        } else if credential {
            out.withheld.push(name);
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

/// Shapes of credentials, whatever variable or message they come in.
static CREDENTIAL_SHAPES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // The password of a URL's userinfo: `postgres://app:PASSWORD@db/…`.
        r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]*:([^\s/@]+)@",
        // A JSON Web Token: three base64url parts, the first two JSON objects.
        r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*",
        // Well-known token prefixes: GitHub, GitLab, Slack, OpenAI/Anthropic/Stripe-style
        // keys, AWS access keys, Google API keys, npm and PyPI tokens.
        r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{16,}|xox[abposr]-[A-Za-z0-9\-]{10,}|sk-[A-Za-z0-9_\-]{16,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_\-]{30,})",
        // A Slack incoming webhook's secret path.
        r"hooks\.slack\.com/services/([A-Za-z0-9/]+)",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("the credential shapes compile"))
    .collect()
});

/// Byte ranges of `text` that look like credentials (the secret part of each match: a
/// URL's password, a webhook's path, a whole token), in order and not overlapping.
pub fn credential_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for shape in CREDENTIAL_SHAPES.iter() {
        for caps in shape.captures_iter(text) {
            let m = caps.get(1).or_else(|| caps.get(0)).expect("a match");
            spans.push(m.range());
        }
    }
    spans.sort_by_key(|r| r.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
    for r in spans {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_default_is_the_base_set_and_explicit_values() {
        let runner = env(&[
            ("PATH", "/bin"),
            ("HOME", "/root"),
            ("LC_ALL", "C.UTF-8"),
            ("EDITOR", "vi"),
            ("GITHUB_TOKEN", "x"),
            ("DATABASE_URL", "postgres://app:hunter22@db/app"),
            ("API_KEY", "k"),
            ("CARGO_INCREMENTAL", "0"),
            ("CARGO_REGISTRY_TOKEN", "cio-x"),
        ]);
        let mut explicit = BTreeMap::new();
        explicit.insert("API_KEY".to_string(), "given".to_string());
        let e = server_env(runner, &explicit, &Inherit::Base);
        let names: Vec<&str> = e.vars.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["API_KEY", "CARGO_INCREMENTAL", "HOME", "LC_ALL", "PATH"]
        );
        assert_eq!(e.vars["API_KEY"], "given");
        // EDITOR is not passed but is no credential: not named.
        assert_eq!(
            e.withheld,
            ["CARGO_REGISTRY_TOKEN", "DATABASE_URL", "GITHUB_TOKEN"]
        );
    }

    #[test]
    fn inherit_all_or_by_name_and_glob() {
        let runner = env(&[
            ("PATH", "/bin"),
            ("AWS_REGION", "eu"),
            ("NODE_OPTIONS", "-x"),
        ]);
        let all = server_env(runner.clone(), &BTreeMap::new(), &Inherit::All);
        assert_eq!(all.vars.len(), 3);
        let some = Inherit::Names(vec!["AWS_*".into()]);
        let e = server_env(runner, &BTreeMap::new(), &some);
        assert!(e.vars.contains_key("AWS_REGION") && !e.vars.contains_key("NODE_OPTIONS"));
        assert!(name_matches("*_URL", "DATABASE_URL") && !name_matches("A*B", "AC"));
        assert!(name_matches("A*B*C", "AxxBxxC") && name_matches("*", ""));
    }

    #[test]
    fn inherit_all_but_credentials_names_what_it_withholds() {
        let runner = env(&[
            ("PATH", "/bin"),
            ("NODE_OPTIONS", "-x"),
            ("GITHUB_TOKEN", "abc"),
            ("NOTES", "ghp_0123456789abcdefghijABCDEFGHIJ"),
            ("API_KEY", "given"),
        ]);
        let explicit = BTreeMap::from([("API_KEY".to_string(), "explicit".to_string())]);
        let e = server_env(runner, &explicit, &Inherit::AllButCredentials);
        assert_eq!(
            e.vars.keys().collect::<Vec<_>>(),
            ["API_KEY", "NODE_OPTIONS", "PATH"]
        );
        assert_eq!(e.vars["API_KEY"], "explicit");
        assert_eq!(e.withheld, ["GITHUB_TOKEN", "NOTES"]);
    }
    #[test]
    fn credential_names() {
        for name in [
            "DB_PASS",
            "MY_PASSWD",
            "CI_JOB_JWT",
            "SLACK_WEBHOOK_URL",
            "GH_PAT",
            "aws_secret_access_key",
            "SIGNING_KEY",
            "SENTRY_DSN",
            "GITHUB_AUTH",
            "AUTH_HEADER",
            "OAUTH_THING",
        ] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in [
            "PATH",
            "PWD",
            "OLDPWD",
            "PATCH_LEVEL",
            "KEYBOARD",
            "PASSENGER_APP_ENV",
            "CARGO_PKG_AUTHORS",
        ] {
            assert!(!looks_like_credential(name), "{name}");
        }
    }

    #[test]
    fn credential_shapes_in_text() {
        let secret = |text: &str| -> Vec<String> {
            credential_spans(text)
                .into_iter()
                .map(|r| text[r].to_string())
                .collect()
        };
        assert_eq!(
            secret("connect postgres://app:hunter22@db:5432/app now"),
            ["hunter22"]
        );
        assert_eq!(
            secret("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 used"),
            ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]
        );
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig_part-1";
        assert_eq!(secret(&format!("Bearer {jwt}")), [jwt]);
        assert_eq!(
            secret("https://hooks.slack.com/services/T000/B000/XXXXXXXX"),
            ["T000/B000/XXXXXXXX"]
        );
        assert_eq!(secret("AKIAABCDEFGHIJKLMNOP"), ["AKIAABCDEFGHIJKLMNOP"]);
        assert!(secret("https://example.com/a?b=c user@example.com sk-short").is_empty());
    }
}
