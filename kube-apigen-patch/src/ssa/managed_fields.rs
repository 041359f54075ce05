//! The `metadata.managedFields` codec, and who a write is recorded for.
//!
//! An entry is `{manager, operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1}`
//! (and `subresource` for a write through one); entries are written sorted by operation,
//! time, manager, API version, subresource. A manager has one `Apply` entry whatever the
//! version, and one `Update` entry per API version ([`identifier`]). Entries read from a
//! request must be valid (an operation of `Apply` or `Update`, an API version,
//! `fieldsType: FieldsV1`); `[]` and `[{}]` reset them ([`is_reset`]).

use kube_apigen_core::go::fmt as gofmt;
use serde_json::{Map, Value, json};

use crate::fieldpath::Set;

pub(super) const APPLY: &str = "Apply";
pub(super) const UPDATE: &str = "Update";

/// One `metadata.managedFields` entry.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) manager: String,
    pub(super) operation: String,
    pub(super) api_version: String,
    pub(super) time: Option<String>,
    pub(super) subresource: String,
    pub(super) set: Set,
}

impl Entry {
    pub(super) fn identifier(&self) -> String {
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
pub(super) fn identifier(manager: &str, operation: &str, api_version: &str, subresource: &str) -> String {
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

pub(super) fn decode_entries(list: Option<&Value>) -> Result<Vec<Entry>, String> {
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
pub(super) fn is_reset(list: Option<&Value>) -> bool {
    match list {
        Some(Value::Array(items)) => {
            items.is_empty() || (items.len() == 1 && items[0].as_object().is_some_and(Map::is_empty))
        }
        _ => false,
    }
}

pub(super) fn remove_managed_fields(object: &mut Value) {
    if let Some(Value::Object(meta)) = object.get_mut("metadata") {
        meta.remove("managedFields");
    }
}

/// Writes the entries, in the API server's order (operation, time to the second, manager,
/// API version, subresource); removes the field when there are none.
pub(super) fn set_managed_fields(object: &mut Value, entries: &[Entry]) {
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

/// The default field manager of a request without `fieldManager`: its `User-Agent` up to
/// the first `/`, printable characters only, at most 128 bytes (the API server's
/// `managerOrUserAgent` / `prefixFromUserAgent`). `kubectl/v1.32.0 (linux/amd64)` is
/// `kubectl`.
pub fn manager_from_user_agent(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in prefix.chars() {
        if c.is_control() {
            continue;
        }
        if out.len() + c.len_utf8() > 128 {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_prefix() {
        assert_eq!(manager_from_user_agent("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
        assert_eq!(manager_from_user_agent("curl/8.5.0"), "curl");
        assert_eq!(manager_from_user_agent("no-slash"), "no-slash");
        assert_eq!(manager_from_user_agent(""), "");
        assert_eq!(manager_from_user_agent(&"a".repeat(200)).len(), 128);
    }
}
