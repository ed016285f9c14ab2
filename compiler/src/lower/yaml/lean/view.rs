//! The validator's view of a lean document: jsonschema's custom-representation traits
//! over [`Lean`], a value being the document and an index ([`LeanRef`]).

use super::{Lean, Name, Num, Slot};
use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, cmp};
use serde_json::{Number, Value};
use std::borrow::Cow;

/// The lean representation, for `jsonschema::options_for`.
pub struct LeanJson;

impl Json for LeanJson {
    type Node<'a> = LeanRef<'a>;
    type PreparedKey = String;
    type StringBuffer = Lean;

    // A lookup scans the members: a pass over them is cheaper than a few lookups.
    const KEYS_PER_LOOKUP: usize = 4;
    // A document is a tree: no value is inside itself.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(buffer: &mut Lean, string: &str, f: impl FnOnce(LeanRef<'_>) -> T) -> T {
        buffer.clear();
        let node = buffer.push_str(string);
        f(buffer.node(node))
    }
}

/// A value of a lean document.
#[derive(Clone, Copy)]
pub struct LeanRef<'a> {
    pub(super) doc: &'a Lean,
    pub(super) at: usize,
}

impl<'a> LeanRef<'a> {
    fn slot(&self) -> Slot {
        self.doc.slots[self.at]
    }
    fn str(&self) -> Option<&'a str> {
        match self.slot() {
            Slot::String(start, len) => Some(&self.doc.text[start..start + len]),
            _ => None,
        }
    }
}

/// A number of a lean document.
pub struct LeanNumber(Num);

impl JsonNumber for LeanNumber {
    fn as_u64(&self) -> Option<u64> {
        match self.0 {
            Num::Pos(u) => Some(u),
            _ => None,
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Num::Pos(u) => i64::try_from(u).ok(),
            Num::Neg(i) => Some(i),
            Num::Float(_) => None,
        }
    }
    fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            Num::Pos(u) => u as f64,
            Num::Neg(i) => i as f64,
            Num::Float(f) => f,
        })
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.0.number().to_string())
    }
    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(self.0.number())
    }
}

impl<'a> Node<'a, LeanJson> for LeanRef<'a> {
    type Object = LeanObject<'a>;
    type Array = LeanArray<'a>;
    type Number = LeanNumber;

    fn as_object(&self) -> Option<LeanObject<'a>> {
        match self.slot() {
            Slot::Object(start, len) => Some(LeanObject {
                doc: self.doc,
                members: &self.doc.members[start..start + len],
            }),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<LeanArray<'a>> {
        match self.slot() {
            Slot::Array(start, len) => Some(LeanArray {
                doc: self.doc,
                items: &self.doc.items[start..start + len],
            }),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        self.str().map(Cow::Borrowed)
    }
    fn as_number(&self) -> Option<LeanNumber> {
        match self.slot() {
            Slot::Number(n) => Some(LeanNumber(n)),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match self.slot() {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self.slot(), Slot::Null)
    }
    fn json_type(&self) -> JsonType {
        match self.slot() {
            Slot::Null => JsonType::Null,
            Slot::Bool(_) => JsonType::Boolean,
            Slot::Number(_) => JsonType::Number,
            Slot::String(..) => JsonType::String,
            Slot::Array(..) => JsonType::Array,
            Slot::Object(..) => JsonType::Object,
        }
    }
    // `const` and `enum` compare text, booleans and null directly; the rest as values.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.slot(), expected) {
            (Slot::String(..), Value::String(b)) => self.str() == Some(b.as_str()),
            (Slot::Bool(a), Value::Bool(b)) => a == *b,
            (Slot::Null, Value::Null) => true,
            (Slot::String(..) | Slot::Bool(_) | Slot::Null, _) => false,
            _ => cmp::equal(&self.doc.to_value(self.at), expected),
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.doc.to_value(self.at))
    }
    fn identity(&self) -> Option<NodeIdentity> {
        let at = u32::try_from(self.at).ok()?;
        Some(NodeIdentity::tagged(
            std::ptr::from_ref::<Lean>(self.doc) as usize,
            at,
        ))
    }
}

/// An object of a lean document.
pub struct LeanObject<'a> {
    doc: &'a Lean,
    members: &'a [(Name, usize)],
}

/// The members of a [`LeanObject`], in order.
pub struct LeanMembers<'a> {
    doc: &'a Lean,
    members: std::slice::Iter<'a, (Name, usize)>,
}

impl<'a> Iterator for LeanMembers<'a> {
    type Item = (&'a str, LeanRef<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let &(name, at) = self.members.next()?;
        Some((self.doc.name(name), self.doc.node(at)))
    }
}

impl<'a> Object<'a, LeanJson> for LeanObject<'a> {
    type Node = LeanRef<'a>;
    type MemberName = &'a str;
    type MembersIter = LeanMembers<'a>;

    fn len(&self) -> usize {
        self.members.len()
    }
    fn get(&self, key: &String) -> Option<LeanRef<'a>> {
        self.members
            .iter()
            .find(|&&(name, _)| self.doc.name(name) == key)
            .map(|&(_, at)| self.doc.node(at))
    }
    fn members(&self) -> LeanMembers<'a> {
        LeanMembers {
            doc: self.doc,
            members: self.members.iter(),
        }
    }
}

/// A list of a lean document.
pub struct LeanArray<'a> {
    doc: &'a Lean,
    items: &'a [usize],
}

/// The items of a [`LeanArray`], in order.
pub struct LeanItems<'a> {
    doc: &'a Lean,
    items: std::slice::Iter<'a, usize>,
}

impl<'a> Iterator for LeanItems<'a> {
    type Item = LeanRef<'a>;
    fn next(&mut self) -> Option<LeanRef<'a>> {
        self.items.next().map(|&at| self.doc.node(at))
    }
}

impl<'a> Array<'a, LeanJson> for LeanArray<'a> {
    type Node = LeanRef<'a>;
    type ElementsIter = LeanItems<'a>;

    fn len(&self) -> usize {
        self.items.len()
    }
    fn elements(&self) -> LeanItems<'a> {
        LeanItems {
            doc: self.doc,
            items: self.items.iter(),
        }
    }
    // `uniqueItems` on lists of text (the common case) compares the text itself.
    fn is_unique(&self) -> bool {
        let texts: Option<Vec<&str>> = self.elements().map(|i| i.str()).collect();
        match texts {
            Some(mut texts) => {
                texts.sort_unstable();
                texts.windows(2).all(|w| w[0] != w[1])
            }
            None => {
                let values: Vec<Value> = self.items.iter().map(|&i| self.doc.to_value(i)).collect();
                jsonschema::json::unique::is_unique(
                    &values.iter().map(Cow::Borrowed).collect::<Vec<_>>(),
                )
            }
        }
    }
}
