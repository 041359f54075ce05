//! The per-kind typed checks the JSON-level store calls: decode an object into its
//! generated model, run the model's validation (`validate_update` with the stored object
//! on updates), and re-encode it, which also drops fields the model does not know.
//!
//! The router validates create and replace bodies (without the old object) before the
//! store sees them, but patched objects and the objects the store itself changes
//! (namespace, generated names, status kept from the stored object) are only checked
//! here. The table comes from the generated crate (its `server::TYPED_CHECKS`, feature
//! `dynamic`); a kind without an entry is stored as it comes, checked only by the router.

use std::collections::BTreeMap;

use serde_json::Value;

pub use kube_apigen::dynamic::{Checked, TypedCheck, typed};

/// Typed checks by (group, version, kind).
pub type TypedChecks = BTreeMap<(&'static str, &'static str, &'static str), TypedCheck>;

/// The typed checks of a generated crate's `server::TYPED_CHECKS` table (e.g.
/// `acme_api::server::TYPED_CHECKS`). A kind served in several versions (a custom
/// resource's `v1` and `v1beta1`) is checked with the model of the version a request uses,
/// as the API server prunes and validates with that version's schema.
pub fn typed_checks(table: &[(&'static str, &'static str, &'static str, TypedCheck)]) -> TypedChecks {
    table.iter().map(|&(group, version, kind, check)| ((group, version, kind), check)).collect()
}

/// Dotted paths (`spec.foo`, `spec.items[0].bar`) of the fields of `original` that
/// `normalized` (its re-encoding by the model) no longer has: the unknown fields a
/// `fieldValidation=Strict` patch must be rejected for. Null fields are not counted: the
/// models drop them too.
pub fn dropped_fields(original: &Value, normalized: &Value) -> Vec<String> {
    let mut out = Vec::new();
    dropped(original, normalized, String::new(), &mut out);
    out
}

fn dropped(original: &Value, normalized: &Value, path: String, out: &mut Vec<String>) {
    match (original, normalized) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                match b.get(key) {
                    Some(other) => dropped(value, other, child, out),
                    None if value.is_null() => {}
                    None => out.push(child),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                dropped(x, y, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_dropped_fields_but_not_nulls() {
        let original = json!({"spec": {"a": 1, "b": null, "c": [{"x": 1, "y": 2}]}, "extra": true});
        let normalized = json!({"spec": {"a": 1, "c": [{"x": 1}]}});
        assert_eq!(dropped_fields(&original, &normalized), vec!["extra", "spec.c[0].y"]);
    }
}
