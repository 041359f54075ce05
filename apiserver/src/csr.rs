//! The registry strategy of `certificates.k8s.io` `certificatesigningrequests`: what the
//! specs cannot express (the API server's `pkg/registry/certificates/certificates/strategy.go`):
//! - on create, `spec.username`, `spec.uid`, `spec.groups` and `spec.extra` are set from
//!   the requesting user, whatever the client sent (anonymous: `system:anonymous`, group
//!   `system:unauthenticated`); no status can be created;
//! - `spec` is immutable: updates of the resource and its subresources keep the stored
//!   spec (client changes are ignored), so the user fields stay as created;
//! - `/status` changes the status but keeps the stored `Approved` and `Denied` conditions
//!   (adding one is 422 `updates may not add a condition of type "Approved"`);
//! - `/approval` changes only `status.conditions`, keeping stored `Failed` conditions;
//! - no update may remove an `Approved`, `Denied` or `Failed` condition (422
//!   `updates may not remove a condition of type "Approved"`);
//! - conditions without `lastUpdateTime` get the current time, and without
//!   `lastTransitionTime` the stored one of the same type and status, else the current
//!   time;
//! - lists and watches select by `spec.signerName` too.

use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen_registry::selector::{SelectableFields, UnknownField};
use kube_apigen_registry::{Strategy, WriteContext};
use serde_json::{Map, Value, json};

/// The strategy of certificate signing requests.
#[derive(Clone, Copy, Debug, Default)]
pub struct CsrStrategy;

impl Strategy for CsrStrategy {
    fn prepare_for_create(&self, context: &WriteContext<'_>, object: &mut Value) {
        fill_user(object, context);
    }

    fn prepare_for_update(&self, context: &WriteContext<'_>, new: &mut Value, old: &Value) {
        set_or_remove(new, "spec", old.get("spec"));
        match context.subresource {
            Some("status") => {
                preserve_conditions(new, old, "Approved");
                preserve_conditions(new, old, "Denied");
                populate_timestamps(new, old, context.now);
            }
            Some("approval") => {
                preserve_conditions(new, old, "Failed");
                populate_timestamps(new, old, context.now);
            }
            _ => {}
        }
    }

    fn validate_update(&self, context: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        validate_conditions(context.subresource, old, new)
    }

    fn subresources(&self) -> &[&'static str] {
        &["approval"]
    }

    fn update_subresource(&self, _subresource: &str, old: &Value, body: &Value) -> Value {
        approval_object(old, body)
    }

    fn selectable_fields(&self) -> SelectableFields {
        SelectableFields {
            fields: &[("metadata.name", "/metadata/name"), ("spec.signerName", "/spec/signerName")],
            unknown: UnknownField::NotSupported,
        }
    }
}

/// Sets the user fields of `spec` from the requesting user, whatever the client sent, and
/// drops any status.
fn fill_user(object: &mut Value, context: &WriteContext<'_>) {
    let user = context.user;
    let Some(root) = object.as_object_mut() else {
        return;
    };
    let spec = root.entry("spec").or_insert_with(|| json!({}));
    if !spec.is_object() {
        *spec = json!({});
    }
    if let Some(spec) = spec.as_object_mut() {
        spec.remove("username");
        spec.remove("uid");
        spec.remove("groups");
        spec.remove("extra");
        spec.insert("username".into(), json!(user.username));
        if !user.uid.is_empty() {
            spec.insert("uid".into(), json!(user.uid));
        }
        spec.insert("groups".into(), json!(user.groups));
        if !user.extra.is_empty() {
            spec.insert("extra".into(), json!(user.extra));
        }
    }
    root.remove("status");
}

/// Errors of an update the schema cannot express: approval conditions removed, or added
/// or changed other than through `/approval`.
fn validate_conditions(subresource: Option<&str>, old: &Value, new: &Value) -> ErrorList {
    let mut errors = ErrorList::new();
    let status = Path::ROOT.field("status");
    let path = status.field("conditions");
    for kind in ["Approved", "Denied", "Failed"] {
        if count(new, kind) < count(old, kind) {
            errors.push(FieldError::forbidden(&path, format!("updates may not remove a condition of type \"{kind}\"")));
        }
    }
    if subresource != Some("approval") {
        for kind in ["Approved", "Denied"] {
            let (old_conditions, new_conditions) = (of_type(old, kind), of_type(new, kind));
            if new_conditions.len() > old_conditions.len() {
                errors
                    .push(FieldError::forbidden(&path, format!("updates may not add a condition of type \"{kind}\"")));
            } else if new_conditions.len() == old_conditions.len() && new_conditions != old_conditions {
                errors.push(FieldError::forbidden(
                    &path,
                    format!("updates may not modify a condition of type \"{kind}\""),
                ));
            }
        }
    }
    errors
}

/// For the `approval` subresource: the stored object with `body`'s conditions.
fn approval_object(old: &Value, body: &Value) -> Value {
    let mut new = old.clone();
    let conditions = body.pointer("/status/conditions").cloned();
    let status = new.as_object_mut().map(|root| root.entry("status").or_insert_with(|| json!({})));
    if let Some(status) = status {
        if !status.is_object() {
            *status = json!({});
        }
        if let Some(status) = status.as_object_mut() {
            match conditions {
                Some(conditions) if !conditions.is_null() => {
                    status.insert("conditions".into(), conditions);
                }
                _ => {
                    status.remove("conditions");
                }
            }
        }
    }
    new
}

fn set_or_remove(object: &mut Value, key: &str, value: Option<&Value>) {
    if let Some(root) = object.as_object_mut() {
        match value {
            Some(value) => {
                root.insert(key.to_owned(), value.clone());
            }
            None => {
                root.remove(key);
            }
        }
    }
}

fn conditions(object: &Value) -> &[Value] {
    object.pointer("/status/conditions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn of_type<'a>(object: &'a Value, kind: &str) -> Vec<&'a Value> {
    conditions(object).iter().filter(|c| c.get("type").and_then(Value::as_str) == Some(kind)).collect()
}

fn count(object: &Value, kind: &str) -> usize {
    of_type(object, kind).len()
}

/// Copies the stored instances of conditions of `kind` over the new ones, when their
/// number did not change (the API server's `preserveConditionInstances`).
fn preserve_conditions(new: &mut Value, old: &Value, kind: &str) {
    let old_instances: Vec<Value> = of_type(old, kind).into_iter().cloned().collect();
    let Some(list) = new.pointer_mut("/status/conditions").and_then(Value::as_array_mut) else {
        return;
    };
    let indices: Vec<usize> = list
        .iter()
        .enumerate()
        .filter(|(_, c)| c.get("type").and_then(Value::as_str) == Some(kind))
        .map(|(i, _)| i)
        .collect();
    if indices.len() != old_instances.len() {
        return;
    }
    for (index, instance) in indices.into_iter().zip(old_instances) {
        list[index] = instance;
    }
}

fn populate_timestamps(new: &mut Value, old: &Value, now: &str) {
    let old_conditions: Vec<Value> = conditions(old).to_vec();
    let Some(list) = new.pointer_mut("/status/conditions").and_then(Value::as_array_mut) else {
        return;
    };
    for condition in list.iter_mut() {
        let Some(fields) = condition.as_object_mut() else {
            continue;
        };
        if is_unset(fields, "lastUpdateTime") {
            fields.insert("lastUpdateTime".into(), json!(now));
        }
        if is_unset(fields, "lastTransitionTime") {
            let kind = fields.get("type").cloned();
            let status = fields.get("status").cloned();
            let previous = old_conditions.iter().find_map(|c| {
                let same = c.get("type") == kind.as_ref() && c.get("status") == status.as_ref();
                same.then(|| c.get("lastTransitionTime").filter(|t| !t.is_null()).cloned()).flatten()
            });
            fields.insert("lastTransitionTime".into(), previous.unwrap_or_else(|| json!(now)));
        }
    }
}

fn is_unset(fields: &Map<String, Value>, key: &str) -> bool {
    match fields.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    }
}
