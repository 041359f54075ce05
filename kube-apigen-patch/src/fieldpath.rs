//! Sets of field paths, and their `FieldsV1` encoding (structured-merge-diff's `fieldpath`).
//!
//! A path is a sequence of path elements, each kept in its serialized form:
//!
//! | element | serialized | printed in conflicts |
//! |---|---|---|
//! | field of an object | `f:replicas` | `.replicas` |
//! | item of a map list, by its key fields (sorted by name, compact JSON) | `k:{"type":"Ready"}` | `[type="Ready"]` |
//! | item of a set, by value | `v:"a"` | `[="a"]` |
//! | item by index (only read, never produced) | `i:0` | `[0]` |
//!
//! A [`Set`] is a trie: at each node, the elements whose path ends there (members) and the
//! elements with longer paths below (children). `FieldsV1` writes a member as `"pe": {}`, a
//! child as `"pe": {...}`, and a node that is both as `"pe": {".": {}, ...}`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// A path element, serialized (`f:name`, `k:{...}`, `v:...`, `i:n`).
pub(crate) type Pe = String;

pub(crate) fn field(name: &str) -> Pe {
    format!("f:{name}")
}

/// The element of a map-list item: its key fields, sorted by name, as compact JSON.
pub(crate) fn key(fields: &BTreeMap<String, Value>) -> Pe {
    format!("k:{}", serde_json::to_string(fields).unwrap_or_default())
}

/// The element of a set item.
pub(crate) fn value(item: &Value) -> Pe {
    format!("v:{}", serde_json::to_string(item).unwrap_or_default())
}

/// How a path element prints in a path (`fieldpath.Path.String()`).
pub(crate) fn display(pe: &str) -> String {
    let (kind, body) = pe.split_at(pe.len().min(2));
    match kind {
        "f:" => format!(".{body}"),
        "v:" => format!("[={body}]"),
        "i:" => format!("[{body}]"),
        "k:" => match serde_json::from_str::<Map<String, Value>>(body) {
            Ok(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(name, value)| format!("{name}={}", serde_json::to_string(value).unwrap_or_default()))
                    .collect();
                format!("[{}]", parts.join(","))
            }
            Err(_) => format!("[{body}]"),
        },
        _ => pe.to_owned(),
    }
}

pub(crate) fn display_path(path: &[Pe]) -> String {
    path.iter().map(|pe| display(pe)).collect()
}

/// A set of paths (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Set {
    members: BTreeSet<Pe>,
    children: BTreeMap<Pe, Set>,
}

impl Set {
    pub(crate) fn insert(&mut self, path: &[Pe]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.values().all(Set::is_empty)
    }

    pub(crate) fn is_member(&self, pe: &str) -> bool {
        self.members.contains(pe)
    }

    pub(crate) fn child(&self, pe: &str) -> Option<&Set> {
        self.children.get(pe)
    }

    /// Whether `pe`, or any path below it, is in the set.
    pub(crate) fn touches(&self, pe: &str) -> bool {
        self.members.contains(pe) || self.children.get(pe).is_some_and(|child| !child.is_empty())
    }

    pub(crate) fn union(&self, other: &Set) -> Set {
        let mut out = self.clone();
        out.members.extend(other.members.iter().cloned());
        for (pe, child) in &other.children {
            let merged = match out.children.get(pe) {
                Some(mine) => mine.union(child),
                None => child.clone(),
            };
            out.children.insert(pe.clone(), merged);
        }
        out
    }

    pub(crate) fn difference(&self, other: &Set) -> Set {
        let mut out =
            Set { members: self.members.difference(&other.members).cloned().collect(), children: BTreeMap::new() };
        for (pe, child) in &self.children {
            let rest = match other.children.get(pe) {
                Some(theirs) => child.difference(theirs),
                None => child.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(pe.clone(), rest);
            }
        }
        out
    }

    pub(crate) fn intersection(&self, other: &Set) -> Set {
        let mut out =
            Set { members: self.members.intersection(&other.members).cloned().collect(), children: BTreeMap::new() };
        for (pe, child) in &self.children {
            if let Some(theirs) = other.children.get(pe) {
                let both = child.intersection(theirs);
                if !both.is_empty() {
                    out.children.insert(pe.clone(), both);
                }
            }
        }
        out
    }

    /// The member paths, in structured-merge-diff's iteration order: at each node the
    /// members, then the children, each sorted.
    pub(crate) fn paths(&self) -> Vec<Vec<Pe>> {
        let mut out = Vec::new();
        self.collect_paths(&mut Vec::new(), &mut out);
        out
    }

    fn collect_paths(&self, prefix: &mut Vec<Pe>, out: &mut Vec<Vec<Pe>>) {
        for member in &self.members {
            let mut path = prefix.clone();
            path.push(member.clone());
            out.push(path);
        }
        for (pe, child) in &self.children {
            prefix.push(pe.clone());
            child.collect_paths(prefix, out);
            prefix.pop();
        }
    }

    /// The `FieldsV1` object.
    pub(crate) fn to_fields_v1(&self) -> Value {
        let mut out = Map::new();
        for member in &self.members {
            if self.children.get(member).is_none_or(Set::is_empty) {
                out.insert(member.clone(), Value::Object(Map::new()));
            }
        }
        for (pe, child) in &self.children {
            if child.is_empty() {
                continue;
            }
            let mut encoded = match child.to_fields_v1() {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            if self.members.contains(pe) {
                encoded.insert(".".to_owned(), Value::Object(Map::new()));
            }
            out.insert(pe.clone(), Value::Object(encoded));
        }
        Value::Object(out)
    }

    /// Reads a `FieldsV1` object. Elements of unknown types are ignored, as the API server
    /// does; key and value elements are normalized (keys sorted, compact JSON).
    pub(crate) fn from_fields_v1(fields: &Value) -> Result<Set, String> {
        let Value::Object(map) = fields else {
            return Err("FieldsV1 must be an object".to_owned());
        };
        let mut set = Set::default();
        for (raw, nested) in map {
            if raw == "." {
                continue;
            }
            let Some(pe) = normalize(raw)? else { continue };
            let Value::Object(inner) = nested else {
                return Err(format!("the value of {raw:?} must be an object"));
            };
            if inner.is_empty() || inner.contains_key(".") {
                set.members.insert(pe.clone());
            }
            let child = Set::from_fields_v1(nested)?;
            if !child.is_empty() {
                set.children.insert(pe, child);
            }
        }
        Ok(set)
    }
}

/// A serialized path element in canonical form; `None` for unknown element types.
fn normalize(raw: &str) -> Result<Option<Pe>, String> {
    if raw.len() < 2 || raw.as_bytes()[1] != b':' {
        return Err(format!("missing colon: {raw}"));
    }
    let body = &raw[2..];
    Ok(match &raw[..2] {
        "f:" => Some(raw.to_owned()),
        "i:" => {
            body.parse::<usize>().map_err(|e| format!("{raw}: {e}"))?;
            Some(raw.to_owned())
        }
        "v:" => {
            let parsed: Value = serde_json::from_str(body).map_err(|e| format!("{raw}: {e}"))?;
            Some(value(&parsed))
        }
        "k:" => {
            let parsed: BTreeMap<String, Value> = serde_json::from_str(body).map_err(|e| format!("{raw}: {e}"))?;
            Some(key(&parsed))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encodes_and_decodes() {
        let mut set = Set::default();
        let ready = key(&BTreeMap::from([("type".to_owned(), json!("Ready"))]));
        set.insert(&[field("spec"), field("replicas")]);
        set.insert(&[field("status"), field("conditions"), ready.clone()]);
        set.insert(&[field("status"), field("conditions"), ready.clone(), field("type")]);
        set.insert(&[field("metadata"), field("finalizers"), value(&json!("a"))]);
        let encoded = set.to_fields_v1();
        assert_eq!(
            encoded,
            json!({
                "f:metadata": {"f:finalizers": {"v:\"a\"": {}}},
                "f:spec": {"f:replicas": {}},
                "f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:type": {}}}}
            })
        );
        assert_eq!(Set::from_fields_v1(&encoded).unwrap(), set);
        assert_eq!(
            display_path(&[field("status"), field("conditions"), ready, field("type")]),
            ".status.conditions[type=\"Ready\"].type"
        );
    }
}
