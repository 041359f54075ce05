//! Server-side apply and field ownership (`metadata.managedFields`); the rules are told
//! in the docs of [`crate::patch`].

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value, json};
use support::gofmt;

use super::fieldpath::{self, Pe, Set};
use super::schema::{ListType, ObjectSchema};
use super::{ApplyError, Conflict};

const APPLY: &str = "Apply";
const UPDATE: &str = "Update";

/// Applies `applied` (an apply configuration) for `manager`; see the module docs of
/// [`crate::patch`].
pub fn apply(
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    schema: Option<&ObjectSchema>,
    now: &str,
) -> Result<Value, ApplyError> {
    apply_subresource(live, applied, manager, "", force, schema, now)
}

/// [`apply`] through a subresource (`status`): the manager's entry is the one of that
/// subresource (`subresource: status`), distinct from its entry for the main resource.
pub fn apply_subresource(
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    subresource: &str,
    force: bool,
    schema: Option<&ObjectSchema>,
    now: &str,
) -> Result<Value, ApplyError> {
    let Value::Object(config) = applied else {
        return Err(ApplyError::Invalid(format!(
            "error decoding YAML: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            gofmt::json_kind(applied)
        )));
    };
    check_type(config, live, schema)?;
    if applied.pointer("/metadata/managedFields").is_some_and(|v| !v.is_null()) {
        return Err(ApplyError::Invalid("metadata.managedFields must be nil".to_owned()));
    }
    let mut live_object = match live {
        Some(Value::Object(object)) => Value::Object(object.clone()),
        _ => Value::Object(Map::new()),
    };
    let mut entries = decode_entries(live_object.pointer("/metadata/managedFields"))
        .map_err(|e| ApplyError::Invalid(format!("failed to decode managed fields: {e}")))?;
    remove_managed_fields(&mut live_object);

    let typed_error =
        |e: String| ApplyError::Invalid(format!("failed to create typed patch object ({}): {e}", object_gvknn(config)));
    let mut owned_set = Set::default();
    field_set(applied, schema, &mut Vec::new(), &mut owned_set).map_err(typed_error)?;
    let owned_set = owned_set.difference(&strip_set());
    let mut merged = merge(Some(&live_object), applied, schema);

    let api_version = config.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_owned();
    let id = identifier(manager, APPLY, &api_version, subresource);
    let previous = entries.iter().position(|e| e.identifier() == id).map(|i| entries.remove(i));
    entries.push(Entry {
        manager: manager.to_owned(),
        operation: APPLY.to_owned(),
        api_version,
        time: previous.as_ref().and_then(|p| p.time.clone()),
        subresource: subresource.to_owned(),
        set: owned_set,
    });
    if let Some(previous) = &previous {
        let owned = entries.iter().fold(Set::default(), |all, e| all.union(&e.set));
        prune(&mut merged, &previous.set, Some(&owned), schema, &[]);
    }

    let comparison = compare(&live_object, &merged, schema);
    let changed = comparison.added.union(&comparison.modified);
    let mut conflicts = Vec::new();
    for entry in entries.iter().filter(|e| e.identifier() != id) {
        for path in entry.set.intersection(&changed).paths() {
            conflicts.push((
                entry.identifier(),
                Conflict {
                    manager: entry.manager.clone(),
                    operation: entry.operation.clone(),
                    api_version: entry.api_version.clone(),
                    subresource: entry.subresource.clone(),
                    path: fieldpath::display_path(&path),
                },
            ));
        }
    }
    if !force && !conflicts.is_empty() {
        // Grouped by manager (ordered by the API server's manager identifier), each
        // manager's fields in path order.
        conflicts.sort_by(|a, b| a.0.cmp(&b.0));
        return Err(ApplyError::Conflict(conflicts.into_iter().map(|(_, c)| c).collect()));
    }
    for entry in entries.iter_mut().filter(|e| e.identifier() != id) {
        entry.set = entry.set.difference(&changed).difference(&comparison.removed);
    }
    entries.retain(|e| !e.set.is_empty());
    if !values_equal(&merged, &live_object)
        && let Some(entry) = entries.iter_mut().find(|e| e.identifier() == id)
    {
        entry.time = Some(now.to_owned());
    }
    set_managed_fields(&mut merged, &entries);
    Ok(merged)
}

/// Records a non-apply write (create, update, patch) of `new` over `old` (`None` for a
/// create) by `manager`, without list and map semantics (lists are atomic): see
/// [`record_update_with_schema`], which the server should prefer when it has the schema.
pub fn record_update(old: Option<&Value>, new: &Value, manager: &str, api_version: &str, now: &str) -> Value {
    record_update_with_schema(old, new, manager, api_version, now, None)
}

/// Records a non-apply write of `new` over `old` by `manager` using `api_version`: the
/// fields the write added or changed become the manager's (its `Update` entry, created or
/// extended, gets `time: now`) and stop being anyone else's; removed fields stop being
/// anyone's. Returns `new` with `metadata.managedFields` rewritten.
///
/// As the API server does, the entries of `new` are used when it carries valid ones (a
/// client may edit them), an empty list (`[]` or `[{}]`) resets them, and otherwise those
/// of `old` are kept.
pub fn record_update_with_schema(
    old: Option<&Value>,
    new: &Value,
    manager: &str,
    api_version: &str,
    now: &str,
    schema: Option<&ObjectSchema>,
) -> Value {
    record_subresource_update(old, new, manager, api_version, "", now, schema)
}

/// [`record_update_with_schema`] for a write through a subresource (`status`): the
/// manager's `Update` entry is the one of that subresource, and the request's
/// `managedFields` are ignored (those of `old` are kept), as the API server does.
pub fn record_subresource_update(
    old: Option<&Value>,
    new: &Value,
    manager: &str,
    api_version: &str,
    subresource: &str,
    now: &str,
    schema: Option<&ObjectSchema>,
) -> Value {
    let Value::Object(_) = new else {
        return new.clone();
    };
    let mut new_object = new.clone();
    let mut old_object = match old {
        Some(Value::Object(object)) => Value::Object(object.clone()),
        _ => Value::Object(Map::new()),
    };
    let from_new = new_object.pointer("/metadata/managedFields").filter(|_| subresource.is_empty());
    let mut entries = if is_reset(from_new) {
        Vec::new()
    } else {
        match decode_entries(from_new) {
            Ok(entries) if !entries.is_empty() => entries,
            _ => decode_entries(old_object.pointer("/metadata/managedFields")).unwrap_or_default(),
        }
    };
    remove_managed_fields(&mut new_object);
    remove_managed_fields(&mut old_object);

    let comparison = compare(&old_object, &new_object, schema);
    let changed = comparison.added.union(&comparison.modified);
    for entry in entries.iter_mut() {
        entry.set = entry.set.difference(&changed).difference(&comparison.removed);
    }
    let current = changed.difference(&comparison.removed).difference(&strip_set());
    if !current.is_empty() {
        let id = identifier(manager, UPDATE, api_version, subresource);
        match entries.iter_mut().find(|e| e.identifier() == id) {
            Some(entry) => {
                entry.set = current.union(&entry.set);
                entry.time = Some(now.to_owned());
            }
            None => entries.push(Entry {
                manager: manager.to_owned(),
                operation: UPDATE.to_owned(),
                api_version: api_version.to_owned(),
                time: Some(now.to_owned()),
                subresource: subresource.to_owned(),
                set: current,
            }),
        }
    }
    entries.retain(|e| !e.set.is_empty());
    set_managed_fields(&mut new_object, &entries);
    new_object
}

/// The applied object must be of the endpoint's kind and version (from the schema, else
/// from the live object).
fn check_type(
    config: &Map<String, Value>,
    live: Option<&Value>,
    schema: Option<&ObjectSchema>,
) -> Result<(), ApplyError> {
    let expected = match schema.and_then(ObjectSchema::group_version_kind) {
        Some((g, v, k)) => Some((g.to_owned(), v.to_owned(), k.to_owned())),
        None => live.and_then(|live| {
            let (g, v) = split_api_version(live.get("apiVersion")?.as_str()?)?;
            Some((g, v, live.get("kind")?.as_str()?.to_owned()))
        }),
    };
    let Some(expected) = expected else {
        return Ok(());
    };
    let kind = config.get("kind").and_then(Value::as_str).unwrap_or("").to_owned();
    let (group, version) =
        config.get("apiVersion").and_then(Value::as_str).and_then(split_api_version).unwrap_or_default();
    if (group.as_str(), version.as_str(), kind.as_str())
        != (expected.0.as_str(), expected.1.as_str(), expected.2.as_str())
    {
        return Err(ApplyError::Invalid(format!("invalid object type: {group}/{version}, Kind={kind}")));
    }
    Ok(())
}

/// `schema.ParseGroupVersion`: `v1` is the core group, `g/v` a group; more slashes fail.
fn split_api_version(api_version: &str) -> Option<(String, String)> {
    match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [""] => Some((String::new(), String::new())),
        [version] => Some((String::new(), (*version).to_owned())),
        [group, version] => Some(((*group).to_owned(), (*version).to_owned())),
        _ => None,
    }
}

/// `namespace/name; group/version, Kind=kind`, as the API server names objects in apply
/// errors.
fn object_gvknn(config: &Map<String, Value>) -> String {
    let meta =
        |key: &str| config.get("metadata").and_then(|m| m.get(key)).and_then(Value::as_str).unwrap_or("").to_owned();
    let (group, version) =
        config.get("apiVersion").and_then(Value::as_str).and_then(split_api_version).unwrap_or_default();
    let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
    format!("{}/{}; {group}/{version}, Kind={kind}", meta("namespace"), meta("name"))
}

/// The fields never recorded as owned.
fn strip_set() -> Set {
    let mut set = Set::default();
    set.insert(&[fieldpath::field("apiVersion")]);
    set.insert(&[fieldpath::field("kind")]);
    set.insert(&[fieldpath::field("metadata")]);
    for name in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        set.insert(&[fieldpath::field("metadata"), fieldpath::field(name)]);
    }
    set
}

// ---- typed walks ------------------------------------------------------------------------

fn list_type(schema: Option<&ObjectSchema>) -> ListType {
    schema.map_or(ListType::Atomic, ObjectSchema::apply_list_type)
}

fn atomic_map(schema: Option<&ObjectSchema>) -> bool {
    schema.is_some_and(ObjectSchema::is_atomic_map)
}

fn child(schema: Option<&ObjectSchema>, key: &str) -> Option<ObjectSchema> {
    schema.and_then(|s| s.field(key))
}

fn declared(schema: Option<&ObjectSchema>, key: &str) -> bool {
    schema.is_some_and(|s| s.property(key).is_some())
}

fn items(schema: Option<&ObjectSchema>) -> Option<ObjectSchema> {
    schema.and_then(ObjectSchema::items)
}

/// The path element of a list item: by key fields for map lists (a missing key takes the
/// key field's default), by value for sets.
fn item_pe(list: &ListType, element: Option<&ObjectSchema>, item: &Value, index: usize) -> Result<Pe, String> {
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
fn field_set(value: &Value, schema: Option<&ObjectSchema>, path: &mut Vec<Pe>, set: &mut Set) -> Result<(), String> {
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

/// Merges an apply configuration into the live object (structured-merge-diff's `Merge`):
/// objects field by field (unless atomic), map lists by key and sets by value (unless
/// atomic), anything else replaced by the configuration's value. `null` in the
/// configuration removes the field.
fn merge(live: Option<&Value>, config: &Value, schema: Option<&ObjectSchema>) -> Value {
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
fn prune(value: &mut Value, remove: &Set, owned: Option<&Set>, schema: Option<&ObjectSchema>, protect: &[String]) {
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

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    }
}

/// What changed between two objects (structured-merge-diff's `Compare`): leaves (scalars,
/// atomic lists and maps, empty objects and lists) added, modified or removed, plus the
/// objects and list items that appeared or disappeared as a whole.
struct Comparison {
    added: Set,
    modified: Set,
    removed: Set,
}

fn compare(old: &Value, new: &Value, schema: Option<&ObjectSchema>) -> Comparison {
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
fn values_equal(a: &Value, b: &Value) -> bool {
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

// ---- managedFields ----------------------------------------------------------------------

/// One `metadata.managedFields` entry.
#[derive(Clone, Debug)]
struct Entry {
    manager: String,
    operation: String,
    api_version: String,
    time: Option<String>,
    subresource: String,
    set: Set,
}

impl Entry {
    fn identifier(&self) -> String {
        identifier(&self.manager, &self.operation, &self.api_version, &self.subresource)
    }

    fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("manager".to_owned(), json!(self.manager));
        entry.insert("operation".to_owned(), json!(self.operation));
        entry.insert("apiVersion".to_owned(), json!(self.api_version));
        if let Some(time) = &self.time {
            entry.insert("time".to_owned(), json!(time));
        }
        entry.insert("fieldsType".to_owned(), json!("FieldsV1"));
        entry.insert("fieldsV1".to_owned(), self.set.to_fields_v1());
        if !self.subresource.is_empty() {
            entry.insert("subresource".to_owned(), json!(self.subresource));
        }
        Value::Object(entry)
    }
}

/// The API server's manager identifier: the entry's JSON without fields, type and time,
/// and without the API version for appliers (an applier is the same manager in any
/// version).
fn identifier(manager: &str, operation: &str, api_version: &str, subresource: &str) -> String {
    let mut out = String::from("{");
    let mut field = |name: &str, value: &str| {
        if value.is_empty() {
            return;
        }
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&format!("\"{name}\":{}", serde_json::to_string(value).unwrap_or_default()));
    };
    field("manager", manager);
    field("operation", operation);
    if operation != APPLY {
        field("apiVersion", api_version);
    }
    field("subresource", subresource);
    out.push('}');
    out
}

fn decode_entries(list: Option<&Value>) -> Result<Vec<Entry>, String> {
    let items = match list {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("managedFields must be a list".to_owned()),
    };
    let mut entries: Vec<Entry> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
        let operation = text("operation");
        if operation != APPLY && operation != UPDATE {
            return Err("operation must be `Apply` or `Update`".to_owned());
        }
        let api_version = text("apiVersion");
        if api_version.is_empty() {
            return Err("apiVersion must not be empty".to_owned());
        }
        match text("fieldsType").as_str() {
            "FieldsV1" => {}
            "" => {
                return Err(format!("missing fieldsType in managed fields entry {index}"));
            }
            other => {
                return Err(format!("invalid fieldsType {} in managed fields entry {index}", gofmt::quote(other)));
            }
        }
        let set = match item.get("fieldsV1") {
            None | Some(Value::Null) => Set::default(),
            Some(fields) => Set::from_fields_v1(fields).map_err(|e| format!("error decoding set: {e}"))?,
        };
        let entry = Entry {
            manager: text("manager"),
            operation,
            api_version,
            time: item.get("time").and_then(Value::as_str).map(str::to_owned),
            subresource: text("subresource"),
            set,
        };
        entries.retain(|e| e.identifier() != entry.identifier());
        entries.push(entry);
    }
    Ok(entries)
}

/// `[]` and `[{}]` reset the managed fields of an update.
fn is_reset(list: Option<&Value>) -> bool {
    match list {
        Some(Value::Array(items)) => {
            items.is_empty() || (items.len() == 1 && items[0].as_object().is_some_and(Map::is_empty))
        }
        _ => false,
    }
}

fn remove_managed_fields(object: &mut Value) {
    if let Some(Value::Object(meta)) = object.get_mut("metadata") {
        meta.remove("managedFields");
    }
}

/// Writes the entries, in the API server's order (operation, time to the second, manager,
/// API version, subresource); removes the field when there are none.
fn set_managed_fields(object: &mut Value, entries: &[Entry]) {
    let Value::Object(map) = object else { return };
    if entries.is_empty() {
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            meta.remove("managedFields");
        }
        return;
    }
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    let seconds =
        |e: &Entry| e.time.as_deref().and_then(|t| t.parse::<jiff::Timestamp>().ok()).map_or(0, |t| t.as_second());
    sorted.sort_by(|a, b| {
        (a.operation.as_str(), seconds(a), a.manager.as_str(), a.api_version.as_str(), a.subresource.as_str()).cmp(&(
            b.operation.as_str(),
            seconds(b),
            b.manager.as_str(),
            b.api_version.as_str(),
            b.subresource.as_str(),
        ))
    });
    let list: Vec<Value> = sorted.into_iter().map(Entry::to_json).collect();
    let meta = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert("managedFields".to_owned(), Value::Array(list));
    }
}
