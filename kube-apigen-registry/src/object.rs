//! Reading and writing the metadata of objects held as JSON.

use serde_json::{Map, Value, json};

/// `metadata.<field>` as a string; `""` when absent or not a string.
pub fn meta_str<'a>(object: &'a Value, field: &str) -> &'a str {
    object.get("metadata").and_then(|m| m.get(field)).and_then(Value::as_str).unwrap_or("")
}

/// `metadata`, created (and replaced when not an object) if needed.
pub fn meta_mut(object: &mut Value) -> &mut Map<String, Value> {
    top_mut(object, "metadata")
}

/// The top-level object `field` (`metadata`, `spec`, `status`), created (and replaced
/// when not an object) if needed.
pub fn top_mut<'a>(object: &'a mut Value, field: &str) -> &'a mut Map<String, Value> {
    if !object.is_object() {
        *object = json!({});
    }
    let root = object.as_object_mut().expect("an object");
    let value = root.entry(field).or_insert_with(|| json!({}));
    if !value.is_object() {
        *value = json!({});
    }
    value.as_object_mut().expect("an object")
}

/// Sets `metadata.<field>`, or removes it when `value` is `None`.
pub fn set_meta(object: &mut Value, field: &str, value: Option<Value>) {
    let meta = meta_mut(object);
    match value {
        Some(value) => {
            meta.insert(field.to_owned(), value);
        }
        None => {
            meta.remove(field);
        }
    }
}

/// Copies `metadata.<field>` of `from` into `to` (removing it when `from` has none).
pub fn copy_meta(from: &Value, to: &mut Value, field: &str) {
    let value = from.get("metadata").and_then(|m| m.get(field)).cloned();
    set_meta(to, field, value);
}

/// Sets a top-level field, or removes it when `value` is `None` or null.
pub fn set_top(object: &mut Value, field: &str, value: Option<Value>) {
    if let Some(root) = object.as_object_mut() {
        match value {
            Some(value) if !value.is_null() => {
                root.insert(field.to_owned(), value);
            }
            _ => {
                root.remove(field);
            }
        }
    }
}

/// `metadata.labels`, if an object.
pub fn labels(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata").and_then(|m| m.get("labels")).and_then(Value::as_object)
}

/// `metadata.finalizers` is non-empty.
pub fn has_finalizers(object: &Value) -> bool {
    object.get("metadata").and_then(|m| m.get("finalizers")).and_then(Value::as_array).is_some_and(|f| !f.is_empty())
}

/// Whether the object is marked for deletion (`metadata.deletionTimestamp` is set): it
/// waits for its finalizers.
pub fn is_marked(object: &Value) -> bool {
    !meta_str(object, "deletionTimestamp").is_empty()
}

/// `metadata.finalizers`, the strings of it.
pub fn finalizers(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Whether everything outside `metadata` and `status` is the same: an update that
/// changes nothing else keeps `metadata.generation`.
pub fn same_spec(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| -> Map<String, Value> {
        let mut map = v.as_object().cloned().unwrap_or_default();
        map.remove("metadata");
        map.remove("status");
        map
    };
    strip(a) == strip(b)
}

/// Whether two objects are the same but for the `time` of their managed fields entries:
/// such an update is a no-op, answered with the stored object and persisting nothing.
pub fn same_ignoring_times(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| -> Value {
        let mut v = v.clone();
        if let Some(entries) = v.pointer_mut("/metadata/managedFields").and_then(Value::as_array_mut) {
            for entry in entries {
                if let Some(entry) = entry.as_object_mut() {
                    entry.remove("time");
                }
            }
        }
        v
    };
    strip(a) == strip(b)
}

/// A status condition as the API server's controllers write it: its `lastTransitionTime`
/// is that of the condition of the same type in `stored` while the status stays, `now`
/// once it changes.
pub fn condition(
    stored: Option<&Vec<Value>>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: &str,
) -> Value {
    let since = stored
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
        .filter(|c| c.get("status").and_then(Value::as_str) == Some(status))
        .and_then(|c| c.get("lastTransitionTime").cloned())
        .unwrap_or_else(|| json!(now));
    json!({"type": type_, "status": status, "lastTransitionTime": since, "reason": reason, "message": message})
}

/// The current time as the API server writes timestamps: RFC 3339, UTC, seconds.
pub fn now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}
