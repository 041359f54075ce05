//! Serde helpers that generated models serialize with. A model is written as an object of
//! its fields in declaration order, optional fields only when set (Go's `omitempty`), then
//! the fields it keeps without declaring them:
//!
//! ```
//! use serde::ser::{Serialize, Serializer};
//! use kube_apigen_core::ser;
//!
//! struct Spec {
//!     replicas: i32,
//!     selector: Option<String>,
//! }
//!
//! impl Serialize for Spec {
//!     fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
//!         let mut object = serializer.serialize_map(None)?;
//!         ser::field(&mut object, "replicas", &self.replicas)?;
//!         ser::optional(&mut object, "selector", &self.selector)?;
//!         ser::end(object)
//!     }
//! }
//!
//! assert_eq!(serde_json::to_string(&Spec { replicas: 2, selector: None }).unwrap(), r#"{"replicas":2}"#);
//! ```
//!
//! Written out rather than derived, as decoding is (see [`crate::de::Object`]): the impls
//! cost less to compile, and a model's crate needs no proc macro.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

/// Writes `key` with `value`.
pub fn field<M: SerializeMap, T: Serialize + ?Sized>(
    object: &mut M,
    key: &'static str,
    value: &T,
) -> Result<(), M::Error> {
    object.serialize_entry(key, value)
}

/// Writes `key` with `value` when it is set.
pub fn optional<M: SerializeMap, T: Serialize>(
    object: &mut M,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(value) => object.serialize_entry(key, value),
        None => Ok(()),
    }
}

/// Writes the fields a model keeps without declaring them (`x-kubernetes-preserve-unknown-fields`).
pub fn unknown_fields<M: SerializeMap>(object: &mut M, fields: &BTreeMap<String, Value>) -> Result<(), M::Error> {
    fields.iter().try_for_each(|(key, value)| object.serialize_entry(key, value))
}

/// Ends the object.
pub fn end<M: SerializeMap>(object: M) -> Result<M::Ok, M::Error> {
    object.end()
}
