//! JSON values as a server's messages are read: with no room to spare, and counted before
//! they are built.
//!
//! A `serde_json::Value` costs 72 bytes however small it is, and an object (an insertion-
//! ordered map) more than 100 bytes per member besides its index. A message of a few
//! megabytes can hold millions of values, so one message below the size limit could still
//! take gigabytes once parsed. Two things keep that bounded: [`count_values`] counts the
//! values of a message's text before anything is built (a message over the session's limit
//! is refused, `MCP-PROTOCOL-013`), and [`Compact`] builds the values with every array and
//! object allocated at its exact size instead of the doubled capacity growth leaves behind.

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// How many JSON values a message's text holds: every scalar, array and object counts one
/// (an object's keys do not count; its values do). Scanned over the bytes, nothing built;
/// text that is not JSON gets a count too, which only bounds what a parse would build.
pub fn count_values(text: &[u8]) -> usize {
    // Every value but the top one is a member of an array or object: one per non-empty
    // container, and one more per comma between members.
    let mut count = 1usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut opened = false;
    for &b in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        if opened && b != b']' && b != b'}' {
            count += 1;
        }
        opened = false;
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => opened = true,
            b',' => count += 1,
            _ => {}
        }
    }
    count
}

/// Whether a text of `len` bytes could hold more than `limit` values at all: each value
/// after the first takes at least two bytes (itself and a comma), so shorter texts need no
/// counting.
pub fn may_exceed(len: usize, limit: usize) -> bool {
    len / 2 >= limit
}

/// A value read with every array and object at its exact size (a seed for serde, so that a
/// message's members can be read with it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Compact;

impl<'de> DeserializeSeed<'de> for Compact {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Compact)
    }
}

impl<'de> Visitor<'de> for Compact {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Compact.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Compact)? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // The members are gathered first so that the map is made at its final size; a key
        // given twice keeps its first place and its last value, as `Value` itself does.
        let mut members: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Compact)?;
            members.push((key, value));
        }
        Ok(Value::Object(members.into_iter().collect::<Map<_, _>>()))
    }
}

/// Parses a text as one JSON value with [`Compact`].
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Compact.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_scalar_array_and_object_once() {
        for (text, n) in [
            ("1", 1),
            ("[]", 1),
            ("{}", 1),
            ("[ ]", 1),
            ("[1]", 2),
            ("[1, 2, 3]", 4),
            (r#"{"a": 1, "b": [true, null, {}]}"#, 6),
            (r#"{"a,b": "x,[y]{", "c\"": "\\"}"#, 3),
            (r#"[[], [[]], {"k": []}]"#, 6),
        ] {
            assert_eq!(count_values(text.as_bytes()), n, "{text}");
        }
        assert!(!may_exceed(9, 5));
        assert!(may_exceed(10, 5));
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"b": 1, "a": [1.5, -2, "x", null, true, {"z": {}, "y": []}], "b": 2}"#,
            r#"[18446744073709551615, -9223372036854775808, 1e300, "\u00e9"]"#,
            "null",
        ] {
            let ours = from_str(text).expect("parsed");
            let theirs: Value = serde_json::from_str(text).expect("parsed");
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(
                ours.to_string(),
                theirs.to_string(),
                "member order of {text}"
            );
        }
        assert!(from_str("[1,").is_err());
        assert!(from_str("1 2").is_err());
    }
}
