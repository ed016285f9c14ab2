//! A lean JSON document of a serialisable value, for the schema to judge a lowered test
//! without building a `serde_json::Value`.
//!
//! `check` judges every lowered `.mcpr` test against the suite schema. Made as a `Value`, a
//! test's document costs a `String` for every member name and a hashed map for every object;
//! most of a test's members are struct fields whose names are `'static`, and its objects
//! have a handful of members, found faster by a scan than by a hash. [`Lean`] keeps static
//! names borrowed and members in a list, and the validator reads it through jsonschema's
//! custom-representation traits ([`LeanJson`]); the schema and its semantics stay the ones
//! every other document is judged by. Errors are never worded from it: a test that fails is
//! judged again as a `Value` to word its problems.

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, cmp};
use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// One value of a lean document.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Lean {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// Text.
    String(String),
    /// A list.
    Array(Vec<Lean>),
    /// An object, its members in order.
    Object(Vec<(Cow<'static, str>, Lean)>),
}

/// The lean document of `value`, as `serde_json::to_value` would make it.
pub fn to_lean<T: Serialize + ?Sized>(value: &T) -> Result<Lean, Error> {
    value.serialize(Serializer)
}

impl Lean {
    /// The same document as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        match self {
            Lean::Null => Value::Null,
            Lean::Bool(b) => Value::Bool(*b),
            Lean::Number(n) => Value::Number(n.clone()),
            Lean::String(s) => Value::String(s.clone()),
            Lean::Array(items) => Value::Array(items.iter().map(Lean::to_value).collect()),
            Lean::Object(members) => {
                let mut m = Map::with_capacity(members.len());
                for (k, v) in members {
                    m.insert(k.to_string(), v.to_value());
                }
                Value::Object(m)
            }
        }
    }
}

/// Why a value has no lean document (a map key that is not text, a failing `Serialize`).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

// ---- serialisation (the shapes serde_json::to_value gives) ----

struct Serializer;

fn float(f: f64) -> Lean {
    Number::from_f64(f).map_or(Lean::Null, Lean::Number)
}

fn variant(name: &'static str, value: Lean) -> Lean {
    Lean::Object(vec![(Cow::Borrowed(name), value)])
}

impl ser::Serializer for Serializer {
    type Ok = Lean;
    type Error = Error;
    type SerializeSeq = Items;
    type SerializeTuple = Items;
    type SerializeTupleStruct = Items;
    type SerializeTupleVariant = Items;
    type SerializeMap = Members;
    type SerializeStruct = Members;
    type SerializeStructVariant = Members;

    fn serialize_bool(self, v: bool) -> Result<Lean, Error> {
        Ok(Lean::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Lean, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Lean, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Lean, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Lean, Error> {
        Ok(Lean::Number(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<Lean, Error> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(n), _) => Ok(Lean::Number(n.into())),
            (_, Ok(n)) => Ok(Lean::Number(n.into())),
            _ => Err(ser::Error::custom("number out of range")),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<Lean, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Lean, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Lean, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Lean, Error> {
        Ok(Lean::Number(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<Lean, Error> {
        u64::try_from(v)
            .map(|n| Lean::Number(n.into()))
            .map_err(|_| ser::Error::custom("number out of range"))
    }
    fn serialize_f32(self, v: f32) -> Result<Lean, Error> {
        Ok(float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Lean, Error> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Lean, Error> {
        Ok(Lean::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Lean, Error> {
        Ok(Lean::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Lean, Error> {
        Ok(Lean::Array(
            v.iter().map(|b| Lean::Number((*b).into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Lean, Error> {
        Ok(Lean::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Lean, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Lean, Error> {
        Ok(Lean::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Lean, Error> {
        Ok(Lean::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Lean, Error> {
        Ok(Lean::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Lean, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        value: &T,
    ) -> Result<Lean, Error> {
        Ok(variant(name, value.serialize(Serializer)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items, Error> {
        Ok(Items {
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Items, Error> {
        Ok(Items {
            items: Vec::with_capacity(len),
            variant: Some(name),
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Members, Error> {
        Ok(Members {
            members: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Members, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Members, Error> {
        Ok(Members {
            members: Vec::with_capacity(len),
            key: None,
            variant: Some(name),
        })
    }
}

struct Items {
    items: Vec<Lean>,
    variant: Option<&'static str>,
}

impl Items {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(Serializer)?);
        Ok(())
    }
    fn finish(self) -> Lean {
        let list = Lean::Array(self.items);
        match self.variant {
            Some(name) => variant(name, list),
            None => list,
        }
    }
}

/// The four serde traits of a list, each pushing its element.
macro_rules! items {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Items {
            type Ok = Lean;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Lean, Error> {
                Ok(self.finish())
            }
        }
    )*};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

struct Members {
    members: Vec<(Cow<'static, str>, Lean)>,
    key: Option<String>,
    variant: Option<&'static str>,
}

impl Members {
    /// A member; a repeated name replaces the earlier value, as in a JSON object.
    fn put(&mut self, name: Cow<'static, str>, value: Lean) {
        match self.members.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => self.members.push((name, value)),
        }
    }
    fn finish(self) -> Lean {
        let object = Lean::Object(self.members);
        match self.variant {
            Some(name) => variant(name, object),
            None => object,
        }
    }
}

impl ser::SerializeMap for Members {
    type Ok = Lean;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(match key.serialize(Serializer)? {
            Lean::String(s) => s,
            Lean::Number(n) => n.to_string(),
            Lean::Bool(b) => b.to_string(),
            _ => return Err(ser::Error::custom("key must be a string")),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("value without a key"))?;
        let value = value.serialize(Serializer)?;
        self.put(Cow::Owned(key), value);
        Ok(())
    }
    fn end(self) -> Result<Lean, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for Members {
    type Ok = Lean;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // A struct's field names are distinct: no need to look for an earlier one.
        let value = value.serialize(Serializer)?;
        self.members.push((Cow::Borrowed(key), value));
        Ok(())
    }
    fn end(self) -> Result<Lean, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for Members {
    type Ok = Lean;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<Lean, Error> {
        Ok(self.finish())
    }
}

// ---- the validator's view ----

/// The lean representation, for `jsonschema::options_for`.
pub struct LeanJson;

impl Json for LeanJson {
    type Node<'a> = &'a Lean;
    type PreparedKey = String;
    type StringBuffer = Lean;

    // A lookup scans the members: a pass over them is cheaper than a few lookups.
    const KEYS_PER_LOOKUP: usize = 4;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(buffer: &mut Lean, string: &str, f: impl FnOnce(&Lean) -> T) -> T {
        *buffer = Lean::String(string.to_owned());
        f(buffer)
    }
}

/// A number of a lean document.
pub struct LeanNumber<'a>(&'a Number);

impl JsonNumber for LeanNumber<'_> {
    fn as_u64(&self) -> Option<u64> {
        self.0.as_u64()
    }
    fn as_i64(&self) -> Option<i64> {
        self.0.as_i64()
    }
    fn as_f64(&self) -> Option<f64> {
        self.0.as_f64()
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.0.to_string())
    }
    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Borrowed(self.0)
    }
}

type Member = (Cow<'static, str>, Lean);

fn member(m: &Member) -> (&str, &Lean) {
    (m.0.as_ref(), &m.1)
}

impl<'a> Node<'a, LeanJson> for &'a Lean {
    type Object = &'a [Member];
    type Array = &'a [Lean];
    type Number = LeanNumber<'a>;

    fn as_object(&self) -> Option<&'a [Member]> {
        match self {
            Lean::Object(members) => Some(members),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&'a [Lean]> {
        match self {
            Lean::Array(items) => Some(items),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            Lean::String(s) => Some(Cow::Borrowed(s)),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<LeanNumber<'a>> {
        match self {
            Lean::Number(n) => Some(LeanNumber(n)),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match self {
            Lean::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Lean::Null)
    }
    fn json_type(&self) -> JsonType {
        match self {
            Lean::Null => JsonType::Null,
            Lean::Bool(_) => JsonType::Boolean,
            Lean::Number(_) => JsonType::Number,
            Lean::String(_) => JsonType::String,
            Lean::Array(_) => JsonType::Array,
            Lean::Object(_) => JsonType::Object,
        }
    }
    // `const` and `enum` compare text, booleans and null directly; the rest as values.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self, expected) {
            (Lean::String(a), Value::String(b)) => a == b,
            (Lean::Bool(a), Value::Bool(b)) => a == b,
            (Lean::Null, Value::Null) => true,
            (Lean::String(_) | Lean::Bool(_) | Lean::Null, _) => false,
            _ => cmp::equal(&Node::to_value(self), expected),
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(Lean::to_value(self))
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(std::ptr::from_ref::<Lean>(self) as usize))
    }
}

impl<'a> Object<'a, LeanJson> for &'a [Member] {
    type Node = &'a Lean;
    type MemberName = &'a str;
    type MembersIter =
        std::iter::Map<std::slice::Iter<'a, Member>, fn(&'a Member) -> (&'a str, &'a Lean)>;

    fn len(&self) -> usize {
        <[Member]>::len(self)
    }
    fn get(&self, key: &String) -> Option<&'a Lean> {
        self.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    fn members(&self) -> Self::MembersIter {
        self.iter()
            .map(member as fn(&'a Member) -> (&'a str, &'a Lean))
    }
}

impl<'a> Array<'a, LeanJson> for &'a [Lean] {
    type Node = &'a Lean;
    type ElementsIter = std::slice::Iter<'a, Lean>;

    fn len(&self) -> usize {
        <[Lean]>::len(self)
    }
    fn elements(&self) -> std::slice::Iter<'a, Lean> {
        self.iter()
    }
    // `uniqueItems` on lists of text (the common case) compares the text itself.
    fn is_unique(&self) -> bool {
        let texts: Option<Vec<&str>> = self
            .iter()
            .map(|i| match i {
                Lean::String(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        match texts {
            Some(mut texts) => {
                texts.sort_unstable();
                texts.windows(2).all(|w| w[0] != w[1])
            }
            None => {
                let values: Vec<Value> = self.iter().map(Lean::to_value).collect();
                jsonschema::json::unique::is_unique(
                    &values.iter().map(Cow::Borrowed).collect::<Vec<_>>(),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Suite;
    use crate::lower::yaml::schema;

    /// The suites the lowering corpus expects, as IR documents.
    fn expected_suites() -> Vec<(String, Value)> {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/lowering");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path().join("expected.ir.json");
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((
                    path.display().to_string(),
                    serde_json::from_str(&text).unwrap(),
                ));
            }
        }
        assert!(out.len() > 20, "{} suites", out.len());
        out
    }

    /// Every node of `v` replaced in turn by each of a few values of other types, and every
    /// member removed in turn: the documents the schema must judge alike either way.
    fn mutations(v: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        let replacements = [
            Value::Null,
            Value::from("x"),
            Value::from(0),
            Value::from(-1.5),
            serde_json::json!({}),
            serde_json::json!([]),
            Value::from(true),
        ];
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let mut removed = m.clone();
                    removed.shift_remove(k);
                    out.push(Value::Object(removed));
                    for changed in mutations(child) {
                        let mut m2 = m.clone();
                        m2.insert(k.clone(), changed);
                        out.push(Value::Object(m2));
                    }
                }
                let mut extra = m.clone();
                extra.insert("unknownMember".into(), Value::from(1));
                out.push(Value::Object(extra));
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    for changed in mutations(child) {
                        let mut items2 = items.clone();
                        items2[i] = changed;
                        out.push(Value::Array(items2));
                    }
                }
                if let Some(first) = items.first() {
                    let mut twice = items.clone();
                    twice.push(first.clone());
                    out.push(Value::Array(twice));
                }
            }
            _ => {}
        }
        out.extend(replacements.into_iter().filter(|r| r != v));
        out
    }

    #[test]
    fn a_lean_document_is_the_document_serde_json_makes() {
        for (name, doc) in expected_suites() {
            let suite: Suite = serde_json::from_value(doc.clone()).unwrap();
            let lean = to_lean(&suite).unwrap();
            assert_eq!(
                lean.to_value(),
                serde_json::to_value(&suite).unwrap(),
                "{name}"
            );
            assert_eq!(to_lean(&doc).unwrap().to_value(), doc, "{name}");
        }
    }

    /// The schema judges each corpus test, and every mutation of it, alike as a lean document
    /// and as a `Value` (both the test definition and the whole suite schema).
    #[test]
    fn the_schema_judges_a_lean_document_as_it_judges_the_value() {
        let (mut valid, mut invalid) = (0, 0);
        for (name, doc) in expected_suites() {
            let tests = doc["tests"].as_array().unwrap();
            for test in tests.iter().take(3) {
                for candidate in std::iter::once(test.clone()).chain(mutations(test)) {
                    let want = schema::test_is_valid(&candidate);
                    let lean = to_lean(&candidate).unwrap();
                    assert_eq!(
                        schema::lean_test_is_valid(&lean),
                        want,
                        "{name}: {candidate}"
                    );
                    if want { valid += 1 } else { invalid += 1 }
                }
            }
            let mut shell = doc.clone();
            shell["tests"] = Value::Array(tests.iter().take(1).cloned().collect());
            for candidate in std::iter::once(shell.clone())
                .chain(mutations(&shell))
                .take(400)
            {
                let lean = to_lean(&candidate).unwrap();
                assert_eq!(
                    schema::lean_is_valid(&lean),
                    schema::is_valid(&candidate),
                    "{name}: {candidate}"
                );
            }
        }
        assert!(
            valid > 100 && invalid > 1000,
            "{valid} valid, {invalid} invalid"
        );
    }
}
