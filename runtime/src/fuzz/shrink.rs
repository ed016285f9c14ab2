//! Minimising a failing input: members are removed and values made simpler (a shorter
//! string, a number nearer 0, fewer items) one at a time, each change kept while the call
//! still fails with the same code, until no change helps or the call budget is spent.

use serde_json::{Map, Value, json};

use super::Sessions;
use crate::error::Error;

/// Simpler versions of a value, simplest first.
pub fn simpler(v: &Value) -> Vec<Value> {
    match v {
        Value::String(s) if !s.is_empty() => {
            let chars: Vec<char> = s.chars().collect();
            let mut out = vec![json!("")];
            if chars.len() > 1 {
                out.push(json!(chars[..chars.len() / 2].iter().collect::<String>()));
            }
            if chars.len() > 2 && chars.iter().any(|c| !c.is_ascii_alphanumeric()) {
                out.push(json!(
                    chars
                        .iter()
                        .filter(|c| c.is_ascii_alphanumeric())
                        .collect::<String>()
                ));
            }
            out
        }
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if i == 0 {
                    return Vec::new();
                }
                let mut out = vec![json!(0)];
                if i.abs() > 1 {
                    out.push(json!(i / 2));
                }
                out
            } else if let Some(f) = n.as_f64() {
                if f == 0.0 {
                    return Vec::new();
                }
                let mut out = vec![json!(0)];
                if f.fract() != 0.0 {
                    out.push(json!(f.trunc() as i64));
                }
                out
            } else {
                vec![json!(0)]
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let mut out = vec![json!([])];
            if a.len() > 1 {
                out.push(Value::Array(a[..a.len() / 2].to_vec()));
            }
            out
        }
        Value::Object(o) if !o.is_empty() => vec![json!({})],
        Value::Bool(true) => vec![json!(false)],
        _ => Vec::new(),
    }
}

/// The smallest input found from `arguments` on which `tool` still fails with `code`.
pub(crate) async fn minimise(
    sessions: &mut Sessions<'_>,
    tool: &str,
    arguments: &Value,
    code: crate::codes::RunCode,
    budget: usize,
) -> Result<Value, Error> {
    let mut best = arguments.clone();
    let mut calls = 0;
    loop {
        let mut changed = false;
        for candidate in candidates(&best) {
            if calls >= budget {
                return Ok(best);
            }
            calls += 1;
            if sessions
                .failure(tool, &candidate)
                .await?
                .is_some_and(|f| f.code == code)
            {
                best = candidate;
                changed = true;
                break;
            }
        }
        if !changed {
            return Ok(best);
        }
    }
}

/// Inputs one step simpler than `v`: each member removed, then each member's value made
/// simpler (nested objects too), in member order.
pub fn candidates(v: &Value) -> Vec<Value> {
    let Value::Object(o) = v else {
        return simpler(v);
    };
    let mut out = Vec::new();
    for k in o.keys() {
        let mut m = o.clone();
        m.shift_remove(k);
        out.push(Value::Object(m));
    }
    for (k, item) in o {
        let inner = match item {
            Value::Object(_) => candidates(item),
            _ => simpler(item),
        };
        for s in inner {
            let mut m: Map<String, Value> = o.clone();
            m.insert(k.clone(), s);
            out.push(Value::Object(m));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_remove_members_before_simplifying_values() {
        let c = candidates(&json!({"a": 12, "b": "xyz", "c": {"d": [1, 2]}}));
        assert_eq!(c[0], json!({"b": "xyz", "c": {"d": [1, 2]}}));
        assert_eq!(c[1], json!({"a": 12, "c": {"d": [1, 2]}}));
        assert_eq!(c[2], json!({"a": 12, "b": "xyz"}));
        assert!(c.contains(&json!({"a": 0, "b": "xyz", "c": {"d": [1, 2]}})));
        assert!(c.contains(&json!({"a": 12, "b": "", "c": {"d": [1, 2]}})));
        assert!(c.contains(&json!({"a": 12, "b": "xyz", "c": {"d": []}})));
        assert!(simpler(&json!(0)).is_empty());
        assert!(simpler(&json!("")).is_empty());
        assert!(simpler(&Value::Null).is_empty());
    }
}
