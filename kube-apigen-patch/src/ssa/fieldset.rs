//! Typed walks of objects, with list and map semantics from the schema
//! ([`ObjectSchema::apply_list_type`]; `x-kubernetes-map-type: atomic` objects are single
//! values): the fields an apply configuration owns, and what changed between two objects.
//!
//! **Owned fields of a configuration** ([`field_set`], structured-merge-diff's
//! `ToFieldSet`): every scalar, atomic list and atomic object; every list item (a map-list
//! item is itself a member, `.`, with its fields below; a set item is `v:<value>`); every
//! entry of a map with arbitrary keys (`labels`). Objects that are struct fields are not
//! members themselves, empty objects and lists own nothing. Map-list items need their key
//! fields (or a schema default for them) and must not repeat, else the apply fails with
//! 400 (the API server: 500) `failed to create typed patch object (ns/name;
//! group/version, Kind=K): .spec.x: duplicate entries for key [type="A"]`. Fields the
//! schema does not declare are untyped values (objects field by field, each field also a
//! member; lists atomic); without a schema the whole object is untyped.
//!
//! **Changes** ([`compare`], structured-merge-diff's `Compare`): leaves added, modified or
//! removed, and objects and list items that appeared or disappeared as a whole (members
//! `.`); fields with `default: {}` in the schema count as present, like the API server's
//! non-pointer structs. Same value (numbers by value: `1` is `1.0`), no change.

use std::collections::{BTreeMap, HashSet};

use kube_apigen_core::go::fmt as gofmt;
use serde_json::{Map, Value};

use crate::fieldpath::{self, Pe, Set};
use crate::schema::{ListType, ObjectSchema};

pub(super) fn list_type(schema: Option<&ObjectSchema>) -> ListType {
    schema.map_or(ListType::Atomic, ObjectSchema::apply_list_type)
}

pub(super) fn atomic_map(schema: Option<&ObjectSchema>) -> bool {
    schema.is_some_and(ObjectSchema::is_atomic_map)
}

pub(super) fn child(schema: Option<&ObjectSchema>, key: &str) -> Option<ObjectSchema> {
    schema.and_then(|s| s.field(key))
}

fn declared(schema: Option<&ObjectSchema>, key: &str) -> bool {
    schema.is_some_and(|s| s.property(key).is_some())
}

pub(super) fn items(schema: Option<&ObjectSchema>) -> Option<ObjectSchema> {
    schema.and_then(ObjectSchema::items)
}

/// The path element of a list item: by key fields for map lists (a missing key takes the
/// key field's default), by value for sets.
pub(super) fn item_pe(
    list: &ListType,
    element: Option<&ObjectSchema>,
    item: &Value,
    index: usize,
) -> Result<Pe, String> {
    match list {
        ListType::Map(keys) => {
            let Value::Object(map) = item else {
                return Err(format!("element {index}: expected map, got {}", gofmt::json_kind(item)));
            };
            let mut fields = BTreeMap::new();
            for key in keys {
                let value = match map.get(key) {
                    Some(value) => value.clone(),
                    None => element.and_then(|e| e.property(key)).and_then(|p| p.default_value()).ok_or_else(|| {
                        format!(
                            "element {index}: associative list with keys has an element that omits key field {} (and doesn't have default value)",
                            gofmt::quote(key)
                        )
                    })?,
                };
                fields.insert(key.clone(), value);
            }
            Ok(fieldpath::key(&fields))
        }
        ListType::Set => Ok(fieldpath::value(item)),
        ListType::Atomic => Ok(format!("i:{index}")),
    }
}

/// The paths an apply configuration sets (structured-merge-diff's `ToFieldSet`): every
/// scalar, atomic list and atomic map; every list item (a map-list item as a member and
/// its fields below); every entry of a map with arbitrary keys. Struct fields holding
/// objects are not members themselves, and empty objects and lists add nothing.
pub(super) fn field_set(
    value: &Value,
    schema: Option<&ObjectSchema>,
    path: &mut Vec<Pe>,
    set: &mut Set,
) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            if atomic_map(schema) {
                set.insert(path);
                return Ok(());
            }
            for (key, item) in map {
                let sub = child(schema, key);
                path.push(fieldpath::field(key));
                field_set(item, sub.as_ref(), path, set)?;
                if !declared(schema, key) {
                    set.insert(path);
                }
                path.pop();
            }
        }
        Value::Array(list) => {
            let kind = list_type(schema);
            if kind == ListType::Atomic {
                set.insert(path);
                return Ok(());
            }
            let element = items(schema);
            let mut seen = HashSet::new();
            for (index, item) in list.iter().enumerate() {
                let pe = item_pe(&kind, element.as_ref(), item, index)
                    .map_err(|e| format!("{}: {e}", fieldpath::display_path(path)))?;
                if !seen.insert(pe.clone()) {
                    return Err(format!(
                        "{}: duplicate entries for key {}",
                        fieldpath::display_path(path),
                        fieldpath::display(&pe)
                    ));
                }
                path.push(pe);
                field_set(item, element.as_ref(), path, set)?;
                set.insert(path);
                path.pop();
            }
        }
        _ => set.insert(path),
    }
    Ok(())
}

/// What changed between two objects (structured-merge-diff's `Compare`): leaves (scalars,
/// atomic lists and maps, empty objects and lists) added, modified or removed, plus the
/// objects and list items that appeared or disappeared as a whole.
pub(super) struct Comparison {
    pub(super) added: Set,
    pub(super) modified: Set,
    pub(super) removed: Set,
}

pub(super) fn compare(old: &Value, new: &Value, schema: Option<&ObjectSchema>) -> Comparison {
    let mut comparison = Comparison { added: Set::default(), modified: Set::default(), removed: Set::default() };
    compare_node(Some(old), Some(new), schema, &mut Vec::new(), &mut comparison);
    comparison
}

fn compare_node(
    old: Option<&Value>,
    new: Option<&Value>,
    schema: Option<&ObjectSchema>,
    path: &mut Vec<Pe>,
    c: &mut Comparison,
) {
    let old = old.filter(|v| !v.is_null());
    let new = new.filter(|v| !v.is_null());
    let empty = Value::Object(Map::new());
    match (old, new) {
        (None, None) => {}
        (Some(Value::Object(_)) | None, Some(Value::Object(_)) | None)
            if !(atomic_map(schema) || is_empty_or_none(old) && is_empty_or_none(new)) =>
        {
            let old_map = old.and_then(Value::as_object);
            let new_map = new.and_then(Value::as_object);
            let mut keys: Vec<&String> = old_map.into_iter().flat_map(|m| m.keys()).collect();
            keys.extend(new_map.into_iter().flat_map(|m| m.keys()));
            keys.sort();
            keys.dedup();
            for key in keys {
                let sub = child(schema, key);
                // Fields that are non-pointer structs in the API server's types exist
                // (empty) in every object.
                let struct_default = sub.as_ref().is_some_and(ObjectSchema::has_empty_object_default);
                let side = |map: Option<&Map<String, Value>>| -> Option<Value> {
                    let map = map?;
                    match map.get(key) {
                        Some(v) if !v.is_null() => Some(v.clone()),
                        _ if struct_default => Some(empty.clone()),
                        _ => None,
                    }
                };
                let (o, n) = (side(old_map), side(new_map));
                path.push(fieldpath::field(key));
                compare_node(o.as_ref(), n.as_ref(), sub.as_ref(), path, c);
                path.pop();
            }
            container_hook(old, new, path, c);
        }
        (Some(Value::Array(_)) | None, Some(Value::Array(_)) | None)
            if list_type(schema) != ListType::Atomic && !(is_empty_or_none(old) && is_empty_or_none(new)) =>
        {
            let kind = list_type(schema);
            let element = items(schema);
            let index = |list: Option<&Value>| -> Vec<(Pe, Value)> {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                for (i, item) in list.and_then(Value::as_array).into_iter().flatten().enumerate() {
                    if let Ok(pe) = item_pe(&kind, element.as_ref(), item, i)
                        && seen.insert(pe.clone())
                    {
                        out.push((pe, item.clone()));
                    }
                }
                out
            };
            let old_items = index(old);
            let new_items = index(new);
            let mut pes: Vec<&Pe> = old_items.iter().map(|(pe, _)| pe).collect();
            for (pe, _) in &new_items {
                if !pes.contains(&pe) {
                    pes.push(pe);
                }
            }
            let find = |items: &[(Pe, Value)], pe: &Pe| items.iter().find(|(p, _)| p == pe).map(|(_, v)| v.clone());
            for pe in pes {
                let (o, n) = (find(&old_items, pe), find(&new_items, pe));
                path.push(pe.clone());
                compare_node(o.as_ref(), n.as_ref(), element.as_ref(), path, c);
                path.pop();
            }
            container_hook(old, new, path, c);
        }
        (None, Some(_)) => c.added.insert(path),
        (Some(_), None) => c.removed.insert(path),
        (Some(o), Some(n)) => {
            if !values_equal(o, n) {
                c.modified.insert(path);
            }
        }
    }
}

fn container_hook(old: Option<&Value>, new: Option<&Value>, path: &[Pe], c: &mut Comparison) {
    match (old, new) {
        (None, Some(_)) => c.added.insert(path),
        (Some(_), None) => c.removed.insert(path),
        _ => {}
    }
}

fn is_empty_or_none(value: Option<&Value>) -> bool {
    value.is_none_or(is_empty_container)
}

/// JSON equality, numbers compared by value (`1` equals `1.0`).
pub(super) fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            x.as_f64() == y.as_f64()
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| values_equal(v, w)),
        _ => a == b,
    }
}

pub(super) fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    }
}
