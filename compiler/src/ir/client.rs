//! How the client answers the server: the suite's `client` block and the `behavior` of a
//! `configure-client` step. Every member the runner reads has its type here, and a member it
//! would ignore (an unknown name, a root without a text `uri`, a sampling answer that is a
//! number) is rejected when the IR is read. Strings are templates in `configure-client`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Client behaviour settings; absent members keep the runner's defaults (or, in
/// `configure-client`, the behaviour in force). Written in this order: `preparedAnswersOnly`,
/// `extensions`, `roots`, `sampling`, `elicitation`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientBehavior {
    /// Answer server requests only with answers queued by `queue-answer` steps; without
    /// one, a request is refused (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared_answers_only: Option<bool>,
    /// Extension capabilities the client declares: name → settings (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Roots offered to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<Root>>,
    /// Scripted answer to sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingAnswer>,
    /// Scripted answer to elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationAnswer>,
}

impl ClientBehavior {
    /// Whether no member is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Calls `f` with every string of the behaviour (the texts, and the strings inside
    /// `extensions` and an elicitation's `content`): the places templates may be.
    pub fn each_string<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        fn in_value<'a>(v: &'a Value, f: &mut dyn FnMut(&'a str)) {
            match v {
                Value::String(s) => f(s),
                Value::Array(items) => items.iter().for_each(|v| in_value(v, f)),
                Value::Object(map) => map.values().for_each(|v| in_value(v, f)),
                _ => {}
            }
        }
        for v in self.extensions.iter().flat_map(Map::values) {
            in_value(v, f);
        }
        for root in self.roots.iter().flatten() {
            match root {
                Root::Uri(uri) => f(uri),
                Root::Named(r) => {
                    f(&r.uri);
                    r.name.iter().for_each(|n| f(n));
                }
            }
        }
        match &self.sampling {
            Some(SamplingAnswer::Text(t)) => f(t),
            Some(SamplingAnswer::Scripted(s)) => {
                for t in [&s.model, &s.text, &s.response].into_iter().flatten() {
                    f(t);
                }
            }
            None => {}
        }
        match &self.elicitation {
            Some(ElicitationAnswer::Action(a)) => f(a),
            Some(ElicitationAnswer::Scripted(e)) => {
                e.action.iter().for_each(|a| f(a));
                e.content.iter().for_each(|c| in_value(c, f));
            }
            None => {}
        }
    }

    /// Sets every member `other` has, keeping the others.
    pub fn merge(&mut self, other: ClientBehavior) {
        let ClientBehavior {
            prepared_answers_only,
            extensions,
            roots,
            sampling,
            elicitation,
        } = other;
        if prepared_answers_only.is_some() {
            self.prepared_answers_only = prepared_answers_only;
        }
        if extensions.is_some() {
            self.extensions = extensions;
        }
        if roots.is_some() {
            self.roots = roots;
        }
        if sampling.is_some() {
            self.sampling = sampling;
        }
        if elicitation.is_some() {
            self.elicitation = elicitation;
        }
    }
}

/// A root offered to the server: its URI alone, or a mapping with `uri` and `name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "each root is a URI, or a mapping with a text `uri` and an optional text `name`"
)]
pub enum Root {
    /// The URI alone.
    Uri(String),
    /// A URI with an optional display name.
    Named(NamedRoot),
}

/// A root written as a mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NamedRoot {
    /// The root's URI, e.g. `file:///workspace`.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The scripted answer to sampling requests: the text alone, or a mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "the sampling answer is its text, or a mapping with text `model` and `text`"
)]
pub enum SamplingAnswer {
    /// The text of the answer (the model stays the default one).
    Text(String),
    /// Model and text.
    Scripted(ScriptedSampling),
}

/// A sampling answer written as a mapping; absent members keep the answer in force.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedSampling {
    /// Model named in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Text of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Text of the answer, read when `text` is absent (another spelling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
}

/// The scripted answer to elicitation requests: the action alone, or a mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "the elicitation answer is its action, or a mapping with a text `action` and `content`"
)]
pub enum ElicitationAnswer {
    /// The action (`accept`, `decline` or `cancel`), with no content.
    Action(String),
    /// Action and content.
    Scripted(ScriptedElicitation),
}

/// An elicitation answer written as a mapping.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedElicitation {
    /// `accept` (when absent), `decline` or `cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The content of an accepted answer, any JSON value.
    #[serde(
        default,
        deserialize_with = "super::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub content: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<ClientBehavior, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn every_member_the_runner_reads_is_read_back_as_written() {
        let doc = json!({
            "preparedAnswersOnly": true,
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}},
            "roots": ["file:///a", {"uri": "file:///b", "name": "B"}],
            "sampling": {"model": "m", "text": "t"},
            "elicitation": {"action": "accept", "content": {"ok": true}},
        });
        let b = read(doc.clone()).unwrap();
        assert_eq!(serde_json::to_value(&b).unwrap(), doc);
        let short = json!({"sampling": "hello", "elicitation": "decline", "roots": []});
        assert_eq!(
            serde_json::to_value(read(short.clone()).unwrap()).unwrap(),
            short
        );
    }

    #[test]
    fn what_the_runner_would_drop_is_rejected() {
        for bad in [
            json!({"roots": [5]}),
            json!({"roots": [{"name": "no uri"}]}),
            json!({"roots": [{"uri": 5}]}),
            json!({"roots": [{"uri": "u", "name": 5}]}),
            json!({"roots": [{"uri": "u", "label": "x"}]}),
            json!({"sampling": 5}),
            json!({"sampling": {"text": 5}}),
            json!({"sampling": {"temperature": 0}}),
            json!({"elicitation": true}),
            json!({"elicitation": {"action": "accept", "values": {}}}),
            json!({"preparedAnswersOnly": "yes"}),
            json!({"extensions": []}),
            json!({"rots": []}),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad} was accepted");
        }
        let e = read(json!({"roots": [5]})).unwrap_err();
        assert!(e.contains("each root is a URI, or a mapping"), "{e}");
    }

    #[test]
    fn merging_sets_only_what_the_other_has() {
        let mut b = read(json!({"roots": [], "sampling": "a"})).unwrap();
        b.merge(read(json!({"sampling": "b", "elicitation": "decline"})).unwrap());
        assert_eq!(
            serde_json::to_value(&b).unwrap(),
            json!({"roots": [], "sampling": "b", "elicitation": "decline"})
        );
        assert!(ClientBehavior::default().is_empty());
        assert!(!b.is_empty());
    }
}
