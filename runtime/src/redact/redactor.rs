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
use crate::environment::Environment;

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// Secrets shorter than this are not searched for (they would mask ordinary text).
const MIN_LEN: usize = 4;

/// The secrets one run learns as it goes (OAuth tokens, codes, verifiers and registered
/// client secrets), masked by every redactor that shares it. The run owns one (in its
/// context) and hands clones to its redactors and OAuth clients; two runs in one process
/// share nothing.
#[derive(Debug, Clone, Default)]
pub struct Learned(std::sync::Arc<std::sync::RwLock<Vec<String>>>);

impl Learned {
    /// Adds a secret obtained during the run to what every redactor of the run masks,
    /// from now on.
    pub fn learn(&self, secret: &str) {
        if let Ok(mut forms) = self.0.write() {
            add_forms(&mut forms, secret);
        }
    }

    fn mask(&self, text: String) -> String {
        match self.0.read() {
            Ok(forms) if !forms.is_empty() => mask_forms(&forms, text),
            _ => text,
        }
    }

    fn any(&self) -> bool {
        self.0.read().map(|f| !f.is_empty()).unwrap_or(false)
    }
}

/// A set of secrets and the forms they may take in text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    forms: Vec<String>,
    learned: Learned,
}

impl Redactor {
    /// An empty redactor.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// A redactor that masks, besides its own secrets, those the run learns (`learned`).
    pub fn learning(learned: &Learned) -> Redactor {
        Redactor {
            forms: Vec::new(),
            learned: learned.clone(),
        }
    }

    /// The redactor of a suite: its `redact` list, target env and header values (of every
    /// target), the runner's credential-like environment values, and the secrets the run
    /// learns (`learned`).
    pub fn for_suite(
        suite: &mcpr_compiler::ir::Suite,
        env: &Environment,
        learned: &Learned,
    ) -> Redactor {
        let mut r = Redactor::learning(learned);
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
                        r.add_resolved(v, env);
                    }
                }
                mcpr_compiler::ir::Target::StreamableHttp(h)
                | mcpr_compiler::ir::Target::Sse(h) => {
                    for (_, v) in h.headers.iter().flat_map(|e| e.iter()) {
                        r.add_resolved(v, env);
                    }
                }
            }
        }
        r.add_credential_vars(env);
        r
    }

    /// Adds a value given to a target: as written and with its `${env.NAME}` references
    /// resolved (what the server really receives), and for `Scheme token` values such as
    /// `Bearer abc…` the token alone too.
    pub fn add_resolved(&mut self, value: &str, env: &Environment) {
        let resolved = resolve_env(value, env);
        for v in [value, resolved.as_str()] {
            self.add(v);
            if let Some((_, token)) = v.split_once(' ') {
                self.add(token);
            }
        }
        // Each referenced variable's value on its own, wherever it shows up.
        for name in env_refs(value) {
            if let Some(v) = env.get(name) {
                self.add(v);
            }
        }
    }

    /// Adds the values of `env`'s credential-like variables (by name or by value).
    pub fn add_credential_vars(&mut self, env: &Environment) {
        for (name, value) in env.iter() {
            if looks_like_credential_var(name, value) {
                self.add(value);
            }
        }
    }

    /// Adds a secret (ignored when shorter than 4 characters or a `${…}` template).
    pub fn add(&mut self, secret: &str) {
        add_forms(&mut self.forms, secret);
    }

    /// The text with every secret form (the learned secrets too), and everything shaped
    /// like a credential, masked.
    pub fn text(&self, s: &str) -> String {
        let out = mask_forms(&self.forms, s.to_string());
        let out = self.learned.mask(out);
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
            Value::Number(_) if self.forms.is_empty() && !self.learned.any() => {}
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

/// Adds `secret` in every form it may take in text (plain, URL-encoded, base64 with and
/// without padding, base64url, JSON-escaped) to `forms`, longest first; secrets shorter
/// than 4 characters and `${…}` templates are ignored.
fn add_forms(forms: &mut Vec<String>, secret: &str) {
    if secret.len() < MIN_LEN || secret.starts_with("${") {
        return;
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
    let each = [
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
    for f in each {
        if f.len() >= MIN_LEN && !forms.contains(&f) {
            forms.push(f);
        }
    }
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
}

/// `text` with every one of `forms` replaced by the mask.
fn mask_forms(forms: &[String], mut text: String) -> String {
    for f in forms {
        if text.contains(f.as_str()) {
            text = text.replace(f.as_str(), MASK);
        }
    }
    text
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

/// A value with its `${env.NAME}` references replaced from `env` (unset variables stay as
/// written: the run refuses them elsewhere).
fn resolve_env(s: &str, env: &Environment) -> String {
    let mut out = s.to_string();
    for name in env_refs(s) {
        if let Some(v) = env.get(name) {
            out = out.replace(&format!("${{env.{name}}}"), v);
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
        let path = "/usr/local/bin:/usr/bin";
        let env: Environment = [("PATH", path)].into_iter().collect();
        let mut r = Redactor::new();
        r.add_resolved("Bearer x${env.PATH}y", &env);
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
