//! A lean JSON document of a serialisable value, for the schema to judge a lowered test
//! without building a `serde_json::Value`.
//!
//! `check` judges every lowered `.mcpr` test against the suite schema. Made as a `Value`, a
//! test's document costs a `String` for every member name, a hashed map for every object and
//! an allocation for every value, and as much again to free them. A [`Lean`] document keeps
//! its values in a few flat lists instead: the values, the items of its lists, the members of
//! its objects (static names borrowed, as struct fields give them) and one text buffer.
//! Building one allocates only when a list grows, and dropping it frees four buffers; a
//! document is cleared and filled again for the next part of a test. A value is a
//! [`LeanRef`] (the document and an index), which the validator reads through jsonschema's
//! custom-representation traits ([`LeanJson`]); the schema and its semantics stay the ones
//! every other document is judged by. Errors are never worded from it: a test that fails is
//! judged again as a `Value` to word its problems.

use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};
use std::fmt;

mod view;
pub use view::{LeanJson, LeanRef};

/// A lean document: values that refer to each other by index in its lists. Node indices
/// come from [`Lean::add`] and [`Lean::add_array`].
#[derive(Debug, Default, Clone)]
pub struct Lean {
    slots: Vec<Slot>,
    /// The items of every list, each list's together.
    items: Vec<usize>,
    /// The members of every object, each object's together and in order.
    members: Vec<(Name, usize)>,
    /// The text of every string and of every member name that is not static.
    text: String,
    /// The items and members of the lists and objects being serialised, innermost last.
    pending_items: Vec<usize>,
    pending_members: Vec<(Name, usize)>,
}

/// One value of a document.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Null,
    Bool(bool),
    Number(Num),
    /// `text[start..start + len]`.
    String(usize, usize),
    /// `items[start..start + len]`.
    Array(usize, usize),
    /// `members[start..start + len]`.
    Object(usize, usize),
}

/// A number as `serde_json::Number` holds it.
#[derive(Debug, Clone, Copy)]
enum Num {
    Pos(u64),
    Neg(i64),
    Float(f64),
}

impl Num {
    fn of(n: &Number) -> Num {
        match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Num::Pos(u),
            (_, Some(i), _) => Num::Neg(i),
            (_, _, f) => Num::Float(f.unwrap_or(0.0)),
        }
    }
    fn number(self) -> Number {
        match self {
            Num::Pos(u) => u.into(),
            Num::Neg(i) => i.into(),
            // Only finite floats are kept (`float` makes the others null).
            Num::Float(f) => Number::from_f64(f).unwrap_or_else(|| 0.into()),
        }
    }
}

/// A member's name: a struct field's, or text of the document.
#[derive(Debug, Clone, Copy)]
enum Name {
    Static(&'static str),
    Text(usize, usize),
}

impl Lean {
    /// Empties the document, keeping its buffers for the next one.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.items.clear();
        self.members.clear();
        self.text.clear();
        self.pending_items.clear();
        self.pending_members.clear();
    }

    /// The bytes the document's buffers hold (their capacity).
    pub fn footprint(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<Slot>()
            + (self.items.capacity() + self.pending_items.capacity()) * size_of::<usize>()
            + (self.members.capacity() + self.pending_members.capacity())
                * size_of::<(Name, usize)>()
            + self.text.capacity()
    }

    /// Adds `value`'s document, as `serde_json::to_value` would make it; returns its node.
    pub fn add<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<usize, Error> {
        let mark = (self.pending_items.len(), self.pending_members.len());
        let added = value.serialize(Serializer { doc: self });
        if added.is_err() {
            self.pending_items.truncate(mark.0);
            self.pending_members.truncate(mark.1);
        }
        added
    }

    /// Adds a list of nodes already in the document; returns its node.
    pub fn add_array(&mut self, items: &[usize]) -> usize {
        let start = self.items.len();
        self.items.extend_from_slice(items);
        self.push(Slot::Array(start, items.len()))
    }

    /// Sets member `name` of the object at `object` to the node `value` (added at the end
    /// when the object has no such member). Does nothing to a node that is not an object.
    pub fn set_member(&mut self, object: usize, name: &'static str, value: usize) {
        let Some(&Slot::Object(start, len)) = self.slots.get(object) else {
            return;
        };
        if let Some(at) = (start..start + len).find(|&m| self.name(self.members[m].0) == name) {
            self.members[at].1 = value;
            return;
        }
        // The object's members move to the end, with the new one after them.
        let moved = self.members.len();
        self.members.extend_from_within(start..start + len);
        self.members.push((Name::Static(name), value));
        self.slots[object] = Slot::Object(moved, len + 1);
    }

    /// The value at `node`, for the validator.
    pub fn node(&self, node: usize) -> LeanRef<'_> {
        LeanRef {
            doc: self,
            at: node,
        }
    }

    /// The value at `node` as a `serde_json::Value`.
    pub fn to_value(&self, node: usize) -> Value {
        match self.slots[node] {
            Slot::Null => Value::Null,
            Slot::Bool(b) => Value::Bool(b),
            Slot::Number(n) => Value::Number(n.number()),
            Slot::String(start, len) => Value::String(self.text[start..start + len].to_owned()),
            Slot::Array(start, len) => Value::Array(
                self.items[start..start + len]
                    .iter()
                    .map(|&i| self.to_value(i))
                    .collect(),
            ),
            Slot::Object(start, len) => {
                let mut m = Map::with_capacity(len);
                for &(name, value) in &self.members[start..start + len] {
                    m.insert(self.name(name).to_owned(), self.to_value(value));
                }
                Value::Object(m)
            }
        }
    }

    fn push(&mut self, slot: Slot) -> usize {
        self.slots.push(slot);
        self.slots.len() - 1
    }

    fn push_str(&mut self, s: &str) -> usize {
        let start = self.text.len();
        self.text.push_str(s);
        self.push(Slot::String(start, s.len()))
    }

    fn name(&self, name: Name) -> &str {
        match name {
            Name::Static(s) => s,
            Name::Text(start, len) => &self.text[start..start + len],
        }
    }

    /// `{name: value}`: how serde_json writes an enum variant with data.
    fn variant(&mut self, name: &'static str, value: usize) -> usize {
        let start = self.members.len();
        self.members.push((Name::Static(name), value));
        self.push(Slot::Object(start, 1))
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

/// Serialises one value into a document; its result is the value's node.
struct Serializer<'d> {
    doc: &'d mut Lean,
}

impl<'d> ser::Serializer for Serializer<'d> {
    type Ok = usize;
    type Error = Error;
    type SerializeSeq = Items<'d>;
    type SerializeTuple = Items<'d>;
    type SerializeTupleStruct = Items<'d>;
    type SerializeTupleVariant = Items<'d>;
    type SerializeMap = Members<'d>;
    type SerializeStruct = Members<'d>;
    type SerializeStructVariant = Members<'d>;

    fn serialize_bool(self, v: bool) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Bool(v)))
    }
    fn serialize_i8(self, v: i8) -> Result<usize, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<usize, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<usize, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Number(Num::of(&v.into()))))
    }
    fn serialize_i128(self, v: i128) -> Result<usize, Error> {
        let n: Number = match (i64::try_from(v), u64::try_from(v)) {
            (Ok(n), _) => n.into(),
            (_, Ok(n)) => n.into(),
            _ => return Err(ser::Error::custom("number out of range")),
        };
        Ok(self.doc.push(Slot::Number(Num::of(&n))))
    }
    fn serialize_u8(self, v: u8) -> Result<usize, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<usize, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<usize, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Number(Num::Pos(v))))
    }
    fn serialize_u128(self, v: u128) -> Result<usize, Error> {
        u64::try_from(v)
            .map(|n| self.doc.push(Slot::Number(Num::Pos(n))))
            .map_err(|_| ser::Error::custom("number out of range"))
    }
    fn serialize_f32(self, v: f32) -> Result<usize, Error> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<usize, Error> {
        // serde_json makes a float that is not finite null.
        let slot = Number::from_f64(v).map_or(Slot::Null, |n| Slot::Number(Num::of(&n)));
        Ok(self.doc.push(slot))
    }
    fn serialize_char(self, v: char) -> Result<usize, Error> {
        Ok(self.doc.push_str(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<usize, Error> {
        Ok(self.doc.push_str(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<usize, Error> {
        let mut items = Items::new(self.doc, None);
        for b in v {
            ser::SerializeSeq::serialize_element(&mut items, b)?;
        }
        Ok(items.finish())
    }
    fn serialize_none(self) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Null))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<usize, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Null))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<usize, Error> {
        Ok(self.doc.push(Slot::Null))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<usize, Error> {
        Ok(self.doc.push_str(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<usize, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        value: &T,
    ) -> Result<usize, Error> {
        let inner = value.serialize(Serializer {
            doc: &mut *self.doc,
        })?;
        Ok(self.doc.variant(name, inner))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'d>, Error> {
        Ok(Items::new(self.doc, None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'d>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Items<'d>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        _: usize,
    ) -> Result<Items<'d>, Error> {
        Ok(Items::new(self.doc, Some(name)))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Members<'d>, Error> {
        Ok(Members::new(self.doc, None))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Members<'d>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        _: usize,
    ) -> Result<Members<'d>, Error> {
        Ok(Members::new(self.doc, Some(name)))
    }
}

/// Moves the entries of a list or object being closed (`pending[mark..]`) to the end of
/// `list`; returns where they start there and how many they are.
fn settle<T: Copy>(list: &mut Vec<T>, pending: &mut Vec<T>, mark: usize) -> (usize, usize) {
    let start = list.len();
    list.extend_from_slice(&pending[mark..]);
    pending.truncate(mark);
    (start, list.len() - start)
}

/// A list being serialised: its items wait in the document's pending list from `mark` on.
struct Items<'d> {
    doc: &'d mut Lean,
    mark: usize,
    variant: Option<&'static str>,
}

impl<'d> Items<'d> {
    fn new(doc: &'d mut Lean, variant: Option<&'static str>) -> Self {
        let mark = doc.pending_items.len();
        Items { doc, mark, variant }
    }
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let item = value.serialize(Serializer {
            doc: &mut *self.doc,
        })?;
        self.doc.pending_items.push(item);
        Ok(())
    }
    fn finish(self) -> usize {
        let doc = &mut *self.doc;
        let (start, len) = settle(&mut doc.items, &mut doc.pending_items, self.mark);
        let list = self.doc.push(Slot::Array(start, len));
        match self.variant {
            Some(name) => self.doc.variant(name, list),
            None => list,
        }
    }
}

/// The four serde traits of a list, each pushing its element.
macro_rules! items {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Items<'_> {
            type Ok = usize;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<usize, Error> {
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

/// An object being serialised: its members wait in the document's pending list from `mark`
/// on.
struct Members<'d> {
    doc: &'d mut Lean,
    mark: usize,
    key: Option<Name>,
    variant: Option<&'static str>,
}

impl<'d> Members<'d> {
    fn new(doc: &'d mut Lean, variant: Option<&'static str>) -> Self {
        let mark = doc.pending_members.len();
        Members {
            doc,
            mark,
            key: None,
            variant,
        }
    }
    /// A map's members with each repeated name kept once, at its first place and with its
    /// last value, as in a JSON object. Its names are compared once each way when there are
    /// a few, else sorted once, so a map of many members costs no scan per member (only a
    /// hand-written `Serialize` repeats a name: every map of the IR has distinct keys).
    fn settle_names(&mut self) {
        let doc = &mut *self.doc;
        let entries = &doc.pending_members[self.mark..];
        let name = |i: usize| doc.name(entries[i].0);
        let n = entries.len();
        if n <= 8 && (1..n).all(|i| (0..i).all(|j| name(i) != name(j))) {
            return;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut keep = vec![true; n];
        let mut last_values = Vec::new();
        for group in order.chunk_by(|&a, &b| name(a) == name(b)) {
            if let [first, .., last] = group {
                last_values.push((*first, entries[*last].1));
                group[1..].iter().for_each(|&i| keep[i] = false);
            }
        }
        if last_values.is_empty() {
            return;
        }
        for (first, value) in last_values {
            doc.pending_members[self.mark + first].1 = value;
        }
        let (mark, mut at) = (self.mark, 0);
        doc.pending_members.retain(|_| {
            let kept = at < mark || keep[at - mark];
            at += 1;
            kept
        });
    }
    fn finish(self) -> usize {
        let doc = &mut *self.doc;
        let (start, len) = settle(&mut doc.members, &mut doc.pending_members, self.mark);
        let object = self.doc.push(Slot::Object(start, len));
        match self.variant {
            Some(name) => self.doc.variant(name, object),
            None => object,
        }
    }
}

impl ser::SerializeMap for Members<'_> {
    type Ok = usize;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let doc = &mut *self.doc;
        let node = key.serialize(Serializer { doc: &mut *doc })?;
        // The key's text stays in the document; its node goes.
        let name = match doc.slots[node] {
            Slot::String(start, len) => Name::Text(start, len),
            Slot::Number(n) => {
                let start = doc.text.len();
                doc.text.push_str(&n.number().to_string());
                Name::Text(start, doc.text.len() - start)
            }
            Slot::Bool(b) => {
                let start = doc.text.len();
                doc.text.push_str(if b { "true" } else { "false" });
                Name::Text(start, doc.text.len() - start)
            }
            _ => return Err(ser::Error::custom("key must be a string")),
        };
        doc.slots.truncate(node);
        self.key = Some(name);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("value without a key"))?;
        let value = value.serialize(Serializer {
            doc: &mut *self.doc,
        })?;
        self.doc.pending_members.push((key, value));
        Ok(())
    }
    fn end(mut self) -> Result<usize, Error> {
        self.settle_names();
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for Members<'_> {
    type Ok = usize;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // A struct's field names are distinct: no need to look for an earlier one.
        let value = value.serialize(Serializer {
            doc: &mut *self.doc,
        })?;
        self.doc.pending_members.push((Name::Static(key), value));
        Ok(())
    }
    fn end(self) -> Result<usize, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for Members<'_> {
    type Ok = usize;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<usize, Error> {
        Ok(self.finish())
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
            let mut lean = Lean::default();
            let node = lean.add(&suite).unwrap();
            assert_eq!(
                lean.to_value(node),
                serde_json::to_value(&suite).unwrap(),
                "{name}"
            );
            // A document holds several values; each reads back as itself.
            let again = lean.add(&doc).unwrap();
            assert_eq!(lean.to_value(again), doc, "{name}");
            assert_eq!(lean.to_value(node), doc, "{name}");
        }
    }

    /// Every shape serde can hand a serialiser, beside what serde_json makes of it.
    #[test]
    fn every_serde_shape_reads_back_as_serde_json_makes_it() {
        use serde::ser::SerializeMap;
        use std::collections::BTreeMap;

        #[derive(serde::Serialize)]
        enum Shape {
            Unit,
            Newtype(i8),
            Tuple(u16, String),
            Struct { a: Option<f32>, b: char },
        }
        #[derive(serde::Serialize)]
        struct Unit;
        #[derive(serde::Serialize)]
        struct Pair(i32, bool);
        /// A map that names "a" twice (the second value wins, at the first place) and
        /// writes bytes.
        struct Odd;
        impl Serialize for Odd {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("a", &1)?;
                m.serialize_entry("b", &Bytes)?;
                m.serialize_entry("a", &[2, 3])?;
                m.end()
            }
        }
        struct Bytes;
        impl Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(b"hi")
            }
        }
        /// A map of thirty members under twelve names, most named more than once.
        struct Many;
        impl Serialize for Many {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(None)?;
                for i in 0..30 {
                    m.serialize_entry(&format!("k{}", (i * 7) % 12), &i)?;
                }
                m.end()
            }
        }
        let wide: BTreeMap<String, usize> = (0..100).map(|i| (format!("w{i}"), i)).collect();
        let numbers: BTreeMap<i64, u128> = [(-3, 7), (12, u128::from(u64::MAX))].into();
        let flags: BTreeMap<bool, &str> = [(false, "no"), (true, "yes")].into();
        let value = (
            vec![
                Shape::Unit,
                Shape::Newtype(-8),
                Shape::Tuple(9, "t".into()),
                Shape::Struct {
                    a: Some(1.5),
                    b: 'é',
                },
                Shape::Struct { a: None, b: 'x' },
            ],
            (Unit, Pair(-1, true), Odd),
            (numbers, flags, [f64::NAN, f64::INFINITY, -0.25, 1e300]),
            (i128::from(i64::MIN), u64::MAX, (), Some(()), "", "ünï"),
            (Many, wide),
        );
        let want = serde_json::to_value(&value).unwrap();
        let mut lean = Lean::default();
        // A value already in the document stays as it was when others are added.
        let first = lean.add(&value).unwrap();
        let second = lean.add(&value).unwrap();
        assert_eq!(lean.to_value(first), want);
        assert_eq!(lean.to_value(second), want);
        assert_eq!(
            want[1][2],
            serde_json::json!({"a": [2, 3], "b": [104, 105]})
        );
        assert_eq!(want[4][0].as_object().map(|m| m.len()), Some(12));
        assert_eq!(want[4][0]["k0"], 24);

        // A key that is not text or a number is refused, as serde_json refuses it.
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(serde_json::to_value(&bad).is_err());
        assert!(lean.add(&bad).is_err());
        assert!(lean.add(&i128::MAX).is_err());
        // The document is whole after a refusal.
        assert_eq!(lean.to_value(first), want);
        let again = lean.add(&value).unwrap();
        assert_eq!(lean.to_value(again), want);
    }

    /// A member set on an object replaces the one it has, or is added after its others.
    #[test]
    fn a_member_set_replaces_or_comes_last() {
        let mut lean = Lean::default();
        let object = lean
            .add(&serde_json::json!({"a": 1, "steps": [], "z": 2}))
            .unwrap();
        let x = lean.add("x").unwrap();
        let list = lean.add_array(&[x, x]);
        lean.set_member(object, "steps", list);
        assert_eq!(
            lean.to_value(object),
            serde_json::json!({"a": 1, "steps": ["x", "x"], "z": 2})
        );
        let more = lean.add(&true).unwrap();
        lean.set_member(object, "more", more);
        assert_eq!(
            lean.to_value(object),
            serde_json::json!({"a": 1, "steps": ["x", "x"], "z": 2, "more": true})
        );
        // Not an object: nothing changes.
        lean.set_member(x, "more", more);
        assert_eq!(lean.to_value(x), serde_json::json!("x"));
        lean.clear();
        let y = lean.add(&[1, 2]).unwrap();
        assert_eq!(lean.to_value(y), serde_json::json!([1, 2]));
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
                    let mut lean = Lean::default();
                    let node = lean.add(&candidate).unwrap();
                    assert_eq!(
                        schema::lean_test_is_valid(lean.node(node)),
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
                let mut lean = Lean::default();
                let node = lean.add(&candidate).unwrap();
                assert_eq!(
                    schema::lean_is_valid(lean.node(node)),
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
