//! Reading the words of a command: templates, literals, variable names, result paths, tool
//! arguments, JSON objects and durations.

use serde_json::{Map, Value};

use super::lex::{Piece, Word};
use super::{Legacy, MAX_MS, is_name};
use crate::diagnostics::Problem;
use crate::ir::ToolStep;
use crate::names::edit_distance;
use crate::source::Span;

impl Legacy<'_> {
    /// The template of a word: text as it is (a literal `${` written `${$}{`), each
    /// `$name` as `${name}`.
    pub(super) fn template_of(&mut self, pieces: &[Piece]) -> String {
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Text(t) => out.push_str(&self.escape(t)),
                Piece::Var { name, .. } => {
                    out.push_str("${");
                    out.push_str(name);
                    out.push('}');
                }
            }
        }
        out
    }

    pub(super) fn escape(&mut self, text: &str) -> String {
        if text.contains("${") {
            self.dollar = true;
            text.replace("${", "${$}{")
        } else {
            text.to_string()
        }
    }

    pub(super) fn template(&mut self, word: &Word) -> Value {
        Value::String(self.template_of(&word.pieces))
    }

    /// A word that must be read at compile time (a number, a name, a path): its text, or a
    /// diagnostic when it holds a variable.
    pub(super) fn literal(
        &mut self,
        command: &'static str,
        word: &Word,
        what: &str,
    ) -> Option<String> {
        if word.has_vars() {
            self.bad(
                command,
                word.span,
                format!("the {what} is read before the script runs, so it cannot hold a variable"),
                format!("write the {what} itself instead of `{}`", word.raw),
            );
            return None;
        }
        Some(word.text())
    }

    pub(super) fn check_vars(&mut self, words: &[Word]) {
        for w in words {
            let found: Vec<(String, Span)> = w.vars().map(|(n, s)| (n.to_string(), s)).collect();
            for (name, span) in found {
                if !self.set.contains(&name) {
                    let suggestion = self
                        .set
                        .iter()
                        .filter(|s| s.len().abs_diff(name.len()) <= (s.len() / 3).max(1))
                        .map(|s| (edit_distance(s, &name), s))
                        .filter(|(d, s)| *d <= (s.len() / 3).max(1))
                        .min_by_key(|(d, _)| *d)
                        .map(|(_, s)| s.clone());
                    self.report(Problem::LegacyVariableNotSet { name, suggestion }, span);
                }
            }
        }
    }

    pub(super) fn variable_name(&mut self, command: &'static str, word: &Word) -> Option<String> {
        let text = word.text();
        if word.has_vars() || !is_name(&text) {
            self.bad(
                command,
                word.span,
                format!("`{}` is not a variable name", word.raw),
                "write the name without `$`: letters, digits and `_`, not starting with a digit"
                    .into(),
            );
            return None;
        }
        Some(text)
    }

    /// The candidate result paths of a `set_var` path, first present wins.
    pub(super) fn response_paths(&self, path: &str) -> Option<Vec<String>> {
        if path == "rawResponse" {
            return Some(vec!["$".into()]);
        }
        let after_complete = self.last_sender == Some(super::Command::Complete);
        let convert = |p: &str| -> Option<String> {
            let mut out = String::from("$");
            for seg in p.split('.') {
                if seg.is_empty() {
                    return None;
                }
                if seg.chars().all(|c| c.is_ascii_digit()) {
                    out.push_str(&format!("[{seg}]"));
                } else if seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    out.push('.');
                    out.push_str(seg);
                } else if !seg.contains('"') {
                    out.push_str(&format!("[\"{seg}\"]"));
                } else {
                    return None;
                }
            }
            Some(out)
        };
        let mut out = Vec::new();
        if let Some(rest) = path.strip_prefix("$.") {
            if after_complete {
                out.push(convert(&format!("completion.{rest}"))?);
            }
            out.push(convert(&format!("structuredContent.{rest}"))?);
            out.push(convert(rest)?);
        } else if path.starts_with("structuredContent.") {
            out.push(convert(path)?);
        } else {
            if after_complete {
                out.push(convert(&format!("completion.{path}"))?);
            }
            out.push(convert(path)?);
        }
        Some(out)
    }

    /// The arguments of `call_tool` and the task commands: `name:value` words are named,
    /// everything else (quoted names, `http://…`, heredoc bodies) is positional.
    pub(super) fn tool_call(&mut self, tool: &Word, args: &[Word]) -> Option<ToolStep> {
        let mut named = Map::new();
        let mut positional = Vec::new();
        let mut seen: Vec<(String, Span)> = Vec::new();
        for w in args {
            match named_key(w) {
                Some(key) => {
                    if seen.iter().any(|(k, _)| *k == key) {
                        self.report(
                            Problem::LegacyDuplicateArgument { name: key.clone() },
                            w.span,
                        );
                        return None;
                    }
                    let mut pieces = w.pieces.clone();
                    if let Some(Piece::Text(t)) = pieces.first_mut() {
                        *t = t[key.len() + 1..].to_string();
                    }
                    if pieces.len() > 1
                        && matches!(pieces.first(), Some(Piece::Text(t)) if t.is_empty())
                    {
                        pieces.remove(0);
                    }
                    let value = self.template_of(&pieces);
                    seen.push((key.clone(), w.span));
                    named.insert(key, Value::String(value));
                }
                None => {
                    let value = self.template(w);
                    positional.push(value);
                }
            }
        }
        let mut step = ToolStep::new(self.template_of(&tool.pieces));
        if !named.is_empty() {
            step.arguments = Some(named);
        }
        if !positional.is_empty() {
            step.positional = Some(positional);
        }
        step.coerce = Some(true);
        Some(step)
    }

    /// Parses a word holding a JSON object; `$name` inside a JSON string becomes `${name}`,
    /// outside a string it becomes the string `"${name}"`.
    pub(super) fn json_object(&mut self, word: &Word) -> Result<Map<String, Value>, String> {
        let mut text = String::new();
        let mut in_string = false;
        let mut escaped = false;
        for p in &word.pieces {
            match p {
                Piece::Text(t) => {
                    for c in t.chars() {
                        if in_string {
                            if escaped {
                                escaped = false;
                            } else if c == '\\' {
                                escaped = true;
                            } else if c == '"' {
                                in_string = false;
                            }
                        } else if c == '"' {
                            in_string = true;
                        }
                    }
                    text.push_str(&self.escape(t));
                }
                Piece::Var { name, .. } => {
                    if in_string {
                        text.push_str(&format!("${{{name}}}"));
                    } else {
                        text.push_str(&format!("\"${{{name}}}\""));
                    }
                }
            }
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(other) => Err(format!(
                "it is {}",
                match other {
                    Value::Array(_) => "an array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "null",
                }
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The argument name of a `name:value` word: an unquoted name at its start followed by `:`,
/// where the value does not start with `//` (so `http://…` stays positional).
pub(super) fn named_key(w: &Word) -> Option<String> {
    if w.heredoc {
        return None;
    }
    let colon = w.raw.find(':')?;
    let key = &w.raw[..colon];
    let mut chars = key.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok || w.raw[colon + 1..].starts_with("//") {
        return None;
    }
    // The key is plain text at the start of the first piece.
    match w.pieces.first() {
        Some(Piece::Text(t)) if t.starts_with(&format!("{key}:")) => Some(key.to_string()),
        _ => None,
    }
}

pub(super) fn looks_like_duration(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Milliseconds of a timeout (`whole` = only whole milliseconds) or a duration (`500`,
/// `500ms`, `2s`, `1.5s`, `1m`), between 1 ms and 10 minutes.
pub(super) fn parse_ms(text: &str, whole: bool) -> Option<u64> {
    let ms = if let Ok(n) = text.parse::<u64>() {
        n
    } else if whole {
        return None;
    } else {
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let (num, unit) = text.split_at(split);
        if num.is_empty() || num.starts_with('.') || num.ends_with('.') {
            return None;
        }
        let n: f64 = num.parse().ok()?;
        let factor = match unit {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            _ => return None,
        };
        let v = n * factor;
        if v.fract() != 0.0 {
            return None;
        }
        v as u64
    };
    (1..=MAX_MS).contains(&ms).then_some(ms)
}
