//! Merging an apply configuration into the live object, and removing what a manager no
//! longer applies.
//!
//! **Merge** ([`merge`]): the configuration merges into the live object (or `{}` on
//! create): objects field by field, map lists by key, sets by value, anything else
//! replaced. Merged list order: the configuration's order, live-only items kept before
//! the item that followed them. `null` in the configuration removes the field.
//!
//! **Removal** ([`prune`]): fields this manager applied last time (its previous `Apply`
//! entry) and not this time are removed, unless some manager (`Apply` or `Update`, the
//! new configuration included) owns them or something inside them; key fields of
//! surviving map-list items stay; objects and lists emptied by removals are removed.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::fieldset::{atomic_map, child, is_empty_container, item_pe, items, list_type};
use crate::fieldpath::{self, Pe, Set};
use crate::schema::{ListType, ObjectSchema};

/// Merges an apply configuration into the live object (structured-merge-diff's `Merge`):
/// objects field by field (unless atomic), map lists by key and sets by value (unless
/// atomic), anything else replaced by the configuration's value. `null` in the
/// configuration removes the field.
pub(super) fn merge(live: Option<&Value>, config: &Value, schema: Option<&ObjectSchema>) -> Value {
    match (live, config) {
        (Some(Value::Object(live)), Value::Object(config)) if !atomic_map(schema) => {
            let mut out = live.clone();
            for (key, value) in config {
                if value.is_null() {
                    out.remove(key);
                    continue;
                }
                let merged = merge(live.get(key), value, child(schema, key).as_ref());
                out.insert(key.clone(), merged);
            }
            Value::Object(out)
        }
        (Some(Value::Array(live)), Value::Array(config)) => {
            let kind = list_type(schema);
            if kind == ListType::Atomic {
                return without_nulls(Value::Array(config.clone()));
            }
            Value::Array(merge_list(live, config, &kind, items(schema).as_ref()))
        }
        _ => without_nulls(config.clone()),
    }
}

/// The configuration's items in its order, each merged with the live item of the same
/// key; live-only items stay where they were relative to the next shared item (or at the
/// end).
fn merge_list(live: &[Value], config: &[Value], kind: &ListType, element: Option<&ObjectSchema>) -> Vec<Value> {
    let config_pes: Vec<Option<Pe>> =
        config.iter().enumerate().map(|(i, item)| item_pe(kind, element, item, i).ok()).collect();
    let in_config: HashSet<&Pe> = config_pes.iter().flatten().collect();
    let mut live_by_pe: BTreeMap<Pe, &Value> = BTreeMap::new();
    let mut before: BTreeMap<Pe, Vec<Value>> = BTreeMap::new();
    let mut pending = Vec::new();
    for (index, item) in live.iter().enumerate() {
        match item_pe(kind, element, item, index) {
            Ok(pe) if in_config.contains(&pe) => {
                if live_by_pe.contains_key(&pe) {
                    continue;
                }
                before.insert(pe.clone(), std::mem::take(&mut pending));
                live_by_pe.insert(pe, item);
            }
            _ => pending.push(item.clone()),
        }
    }
    let mut out = Vec::with_capacity(live.len() + config.len());
    let mut done = HashSet::new();
    for (item, pe) in config.iter().zip(&config_pes) {
        match pe {
            Some(pe) if !done.insert(pe.clone()) => {}
            Some(pe) => {
                out.extend(before.remove(pe).unwrap_or_default());
                out.push(merge(live_by_pe.get(pe).copied(), item, element));
            }
            None => out.push(without_nulls(item.clone())),
        }
    }
    out.extend(before.into_values().flatten());
    out.extend(pending);
    out
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, without_nulls(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// Removes from `value` the paths of `remove` (a manager's previous apply) that nobody
/// owns now; a field, item or object some manager owns something in stays, and so do the
/// key fields of map-list items. Objects and lists emptied by the removal go too.
pub(super) fn prune(
    value: &mut Value,
    remove: &Set,
    owned: Option<&Set>,
    schema: Option<&ObjectSchema>,
    protect: &[String],
) {
    match value {
        Value::Object(map) => {
            if atomic_map(schema) {
                return;
            }
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                if protect.contains(&key) {
                    continue;
                }
                let pe = fieldpath::field(&key);
                let sub = child(schema, &key);
                if prune_entry(map.get_mut(&key), &pe, remove, owned, sub.as_ref(), &[]) {
                    map.remove(&key);
                }
            }
        }
        Value::Array(list) => {
            let kind = list_type(schema);
            let protect_keys = match &kind {
                ListType::Atomic => return,
                ListType::Map(keys) => keys.clone(),
                ListType::Set => Vec::new(),
            };
            let element = items(schema);
            let mut index = 0;
            list.retain_mut(|item| {
                let at = index;
                index += 1;
                let Ok(pe) = item_pe(&kind, element.as_ref(), item, at) else {
                    return true;
                };
                !prune_entry(Some(item), &pe, remove, owned, element.as_ref(), &protect_keys)
            });
        }
        _ => {}
    }
}

/// Prunes one field or item; whether it must go.
fn prune_entry(
    value: Option<&mut Value>,
    pe: &str,
    remove: &Set,
    owned: Option<&Set>,
    schema: Option<&ObjectSchema>,
    protect: &[String],
) -> bool {
    let Some(value) = value else { return false };
    let owned_somewhere = owned.is_some_and(|o| o.touches(pe));
    if remove.is_member(pe) && !owned_somewhere {
        return true;
    }
    let Some(below) = remove.child(pe) else {
        return false;
    };
    let had_content = !is_empty_container(value);
    prune(value, below, owned.and_then(|o| o.child(pe)), schema, protect);
    had_content && is_empty_container(value) && !owned.is_some_and(|o| o.is_member(pe))
}
