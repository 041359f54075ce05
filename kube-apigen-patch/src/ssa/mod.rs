//! Server-side apply (`application/apply-patch+yaml`) and field ownership
//! (`metadata.managedFields`): this much of the API server's field management
//! (structured-merge-diff), with list and map semantics from the schema
//! ([`ObjectSchema::apply_list_type`]: `x-kubernetes-list-type`, else a `merge` patch
//! strategy with a merge key as a map list, without one as a set, else atomic).
//!
//! [`apply`] goes in these steps:
//!
//! 1. **Checks**: the configuration is an object of the schema's group, version and kind
//!    (without a schema, those of the live object), else 400 `invalid object type:
//!    autoscaling/v1, Kind=HorizontalPodAutoscaler`; `metadata.managedFields` must be
//!    absent, else 400 `metadata.managedFields must be nil`. Fields the schema does not
//!    declare are accepted and left to the server's field validation (the API server
//!    would fail the typed conversion).
//! 2. **Owned fields** of the configuration (`fieldset`). `apiVersion`, `kind`,
//!    `metadata` and `metadata.name`, `namespace`, `creationTimestamp`, `selfLink`,
//!    `uid`, `clusterName`, `generation`, `managedFields`, `resourceVersion` are never
//!    owned.
//! 3. **Merge** of the configuration into the live object (`merge`).
//! 4. **Removal** of what this manager applied last time and no longer does (`merge`).
//! 5. **Conflicts**: comparing live and result (`fieldset`), a field added or changed
//!    that another entry (any `Apply` or `Update` entry but this manager's `Apply` one)
//!    owns is a conflict. Same value, no change, no conflict: ownership is shared. Without
//!    `force`, any conflict fails the whole apply with 409 ([`ApplyError::Conflict`]);
//!    with `force`, the other entries lose those fields.
//! 6. **Ownership**: this manager's `Apply` entry becomes exactly the set of step 2;
//!    other entries lose the fields the apply removed; entries left empty disappear.
//! 7. **Entries** (`managed_fields`): the `Apply` entry's `time` is set to `now` when the
//!    object changed (a no-op apply keeps the previous time, and a manager's first no-op
//!    apply has none, as the API server).
//!
//! [`record_update_with_schema`] (and [`record_update`], the same without a schema: every
//! list atomic) records `create`/`update`/`patch` writes as the API server's `Update`
//! operation: the fields added or changed are removed from every entry and added to the
//! manager's `Update` entry (`time: now`); removed fields are removed from every entry.
//! An update that changes nothing leaves the entries as they were. The request's own
//! `managedFields` are used when valid and non-empty; `[]` or `[{}]` resets them.
//!
//! Writes through a subresource use [`apply_subresource`] / [`record_subresource_update`]:
//! the manager's entry is then the one with `subresource: status` (distinct from its
//! main-resource entry; conflicts name it `"mgr" with subresource "status"`), and a
//! subresource update ignores the request's `managedFields`.
//!
//! Not implemented: resetting fields per endpoint (the API server ignores `status` in an
//! apply to the main resource and everything but `status` through `/status`: the caller
//! should drop those fields from the configuration, as its strategy drops them from the
//! object), the limit of 10 `Update` entries (`ancient-changes`), conversion of entries
//! recorded in other API versions (sets are compared as written), the
//! `last-applied-configuration` annotation upgrade path, unions, `i:` index elements
//! (read, never produced), and defaulting the merged object (the server's job).

use kube_apigen_core::go::fmt as gofmt;
use serde_json::{Map, Value};

use super::fieldpath::{self, Set};
use super::schema::ObjectSchema;
use super::{ApplyError, Conflict};

mod fieldset;
mod managed_fields;
mod merge;

use fieldset::{compare, field_set, values_equal};
pub use managed_fields::manager_from_user_agent;
use managed_fields::{
    APPLY, Entry, UPDATE, decode_entries, identifier, is_reset, remove_managed_fields, set_managed_fields,
};
use merge::{merge, prune};

/// Applies `applied` (an apply configuration) for `manager`, in the steps of the module
/// docs.
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
