//! Keeping secrets out of every report: the suite's `redact` values, the values given to a
//! target in its environment and headers, the values of the runner's credential-like
//! environment variables (by name or by value), `sensitive` exports, and the secrets
//! learned while the run goes on (OAuth tokens, codes, verifiers and registered client
//! secrets, see [`learn`]), in plain, URL-encoded and base64 forms; and any text shaped
//! like a credential (a URL's password, a JWT, a well-known token prefix:
//! `redact::credential_spans`), wherever it comes from. Dependency outputs reach consumers
//! unredacted; only what people read is redacted.

use base64::Engine as _;
use serde_json::Value;

use super::{credential_spans, looks_like_credential_var};

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Secrets shorter than this are not searched for (they would mask ordinary text).
const MIN_LEN: usize = 4;

/// Secrets learned by this process while it runs, masked by every redactor.
static LEARNED: std::sync::RwLock<Redactor> =
    std::sync::RwLock::new(Redactor { forms: Vec::new() });

/// Adds a secret obtained during the run (an OAuth token, code, verifier, client secret)
/// to what every redactor masks, from now on.
pub fn learn(secret: &str) {
    if let Ok(mut l) = LEARNED.write() {
        l.add(secret);
    }
}

fn learned_any() -> bool {
    LEARNED.read().map(|l| !l.forms.is_empty()).unwrap_or(false)
}

/// A set of secrets and the forms they may take in text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    forms: Vec<String>,
}

impl Redactor {
    /// An empty redactor.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// The redactor of a suite: its `redact` list, target env and header values (of every
    /// target), and the runner's credential-like environment values.
    pub fn for_suite(suite: &mcpr_compiler::ir::Suite) -> Redactor {
        let mut r = Redactor::new();
        for s in suite.redact.iter().flatten() {
            r.add(s);
        }
        let mut targets: Vec<&mcpr_compiler::ir::Target> = suite.target.iter().collect();
        for map in [&suite.targets, &suite.servers].into_iter().flatten() {
            targets.extend(map.iter().map(|(_, t)| t));
        }
        for t in targets {
            match t {
                mcpr_compiler::ir::Target::Stdio(s) => {
                    for (_, v) in s.env.iter().flat_map(|e| e.iter()) {
                        r.add_resolved(v);
                    }
                }
                mcpr_compiler::ir::Target::StreamableHttp(h)
                | mcpr_compiler::ir::Target::Sse(h) => {
                    for (_, v) in h.headers.iter().flat_map(|e| e.iter()) {
                        r.add_resolved(v);
                    }
                }
            }
        }
        for (name, value) in super::runner_env() {
            if looks_like_credential_var(&name, &value) {
                r.add(&value);
            }
        }
        r
    }

    /// Adds a value given to a target: as written and with its `${env.NAME}` references
    /// resolved (what the server really receives), and for `Scheme token` values such as
    /// `Bearer abc…` the token alone too.
    pub fn add_resolved(&mut self, value: &str) {
        let resolved = resolve_env(value);
        for v in [value, resolved.as_str()] {
            self.add(v);
            if let Some((_, token)) = v.split_once(' ') {
                self.add(token);
            }
        }
        // Each referenced variable's value on its own, wherever it shows up.
        for name in env_refs(value) {
            if let Ok(v) = std::env::var(name) {
                self.add(&v);
            }
        }
    }

    /// Adds a secret (ignored when shorter than 4 characters or a `${…}` template).
    pub fn add(&mut self, secret: &str) {
        if secret.len() < MIN_LEN || secret.starts_with("${") {
            return;
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
        let forms = [
            secret.to_string(),
            crate::values::url_encode(secret),
            b64.clone(),
            b64.trim_end_matches('=').to_string(),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
            serde_json::to_string(secret)
                .unwrap_or_default()
                .trim_matches('"')
                .to_string(),
        ];
        for f in forms {
            if f.len() >= MIN_LEN && !self.forms.contains(&f) {
                self.forms.push(f);
            }
        }
        self.forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    }

    /// The text with every secret form (the learned secrets too), and everything shaped
    /// like a credential, masked.
    pub fn text(&self, s: &str) -> String {
        let mut out = self.own_text(s);
        if learned_any()
            && let Ok(l) = LEARNED.read()
        {
            out = l.own_text(&out);
        }
        out
    }

    fn own_text(&self, s: &str) -> String {
        let mut out = s.to_string();
        for f in &self.forms {
            if out.contains(f.as_str()) {
                out = out.replace(f.as_str(), MASK);
            }
        }
        let spans = credential_spans(&out);
        if spans.is_empty() {
            return out;
        }
        let mut masked = String::with_capacity(out.len());
        let mut at = 0;
        for r in spans {
            masked.push_str(&out[at..r.start]);
            masked.push_str(MASK);
            at = r.end;
        }
        masked.push_str(&out[at..]);
        masked
    }

    /// Masks every string leaf of a JSON value in place (and the keys of objects, and
    /// numbers whose digits hold a secret, which become the masked text). Credential-shaped
    /// text is masked whether or not the redactor holds secrets of its own, as [`text`]
    /// does: a value is never shown where its text would be masked.
    ///
    /// [`text`]: Redactor::text
    pub fn value(&self, v: &mut Value) {
        match v {
            Value::String(s) => *s = self.text(s),
            Value::Number(_) if self.forms.is_empty() && !learned_any() => {}
            Value::Number(n) => {
                let text = n.to_string();
                let masked = self.text(&text);
                if masked != text {
                    *v = Value::String(masked);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.value(i)),
            Value::Object(o) => {
                if o.keys().any(|k| self.text(k) != *k) {
                    *o = std::mem::take(o)
                        .into_iter()
                        .map(|(k, v)| (self.text(&k), v))
                        .collect();
                }
                o.values_mut().for_each(|i| self.value(i));
            }
            _ => {}
        }
    }
}

/// The names of the `${env.NAME}` references in a value.
fn env_refs(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find("${env.") {
        let tail = &rest[at + 6..];
        match tail.find('}') {
            Some(end) => {
                out.push(&tail[..end]);
                rest = &tail[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// A value with its `${env.NAME}` references replaced by the runner's environment (unset
/// variables stay as written: the run refuses them elsewhere).
fn resolve_env(s: &str) -> String {
    let mut out = s.to_string();
    for name in env_refs(s) {
        if let Ok(v) = std::env::var(name) {
            out = out.replace(&format!("${{env.{name}}}"), &v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_plain_url_encoded_and_base64_forms() {
        let mut r = Redactor::new();
        r.add("s3cr3t/tok+en");
        r.add("ab");
        assert_eq!(r.text("x s3cr3t/tok+en y"), "x [REDACTED] y");
        assert_eq!(r.text("q=s3cr3t%2Ftok%2Ben"), "q=[REDACTED]");
        let b64 = base64::engine::general_purpose::STANDARD.encode("s3cr3t/tok+en");
        assert_eq!(r.text(&format!("Basic {b64}")), "Basic [REDACTED]");
        assert_eq!(r.text("ab stays"), "ab stays");
    }

    #[test]
    fn values_given_to_a_target_are_masked_as_the_server_sees_them() {
        // PATH is always set and never looks like a credential.
        let path = std::env::var("PATH").unwrap();
        let mut r = Redactor::new();
        r.add_resolved("Bearer x${env.PATH}y");
        assert_eq!(r.text(&format!("got Bearer x{path}y")), "got [REDACTED]");
        assert_eq!(r.text(&format!("just {path}")), "just [REDACTED]");
        assert_eq!(env_refs("${env.A}-${env.B}-${env.C"), ["A", "B"]);
    }

    #[test]
    fn token_shapes_are_masked_in_values_by_an_empty_redactor() {
        let token = format!("ghp_{}", "a1B2".repeat(9));
        let slack = "xoxb-1234567890-abcdefghij";
        let mut v = serde_json::json!({"found": [format!("token {token}"), {"k": slack}], "n": 7});
        Redactor::new().value(&mut v);
        let text = v.to_string();
        assert!(!text.contains(&token) && !text.contains(slack), "{text}");
        assert_eq!(v["n"], 7);
    }
}
