//! Serde helpers that generated models use.

use serde::{Deserialize, Deserializer};

/// A schema's `default`, as JSON text, decoded into the field's type: structural
/// defaulting, which the API server applies to custom resources whenever it decodes them.
/// Generated models call it for absent fields; the generator checked that the value
/// fits the field's type, and the type's own default stands in should it not decode.
pub fn spec_default<T: serde::de::DeserializeOwned + Default>(json: &str) -> T {
    serde_json::from_str(json).unwrap_or_default()
}

/// Decodes `null` as `default()`: for fields with a structural default, which the API
/// server applies to a `null` it drops (the schema not being `nullable`).
pub fn null_as<'de, D, T>(deserializer: D, default: fn() -> T) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_else(default))
}

/// Decodes `null` as the type's default, the way Go decodes `null` into a non-pointer
/// field. Generated models use it for required fields, which Kubernetes may send as
/// `null` (a nil slice, for example).
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Decodes a map whose values may be `null`, as their default: Go decodes
/// `{"scopes": null}` into a `map[string][]string` as a nil slice. Generated models use it
/// for required maps; `null` for the map itself is the empty map.
pub fn map_null_values_as_default<'de, D, V>(deserializer: D) -> Result<std::collections::BTreeMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Default + Deserialize<'de>,
{
    let map = Option::<std::collections::BTreeMap<String, Option<V>>>::deserialize(deserializer)?;
    Ok(map.unwrap_or_default().into_iter().map(|(key, value)| (key, value.unwrap_or_default())).collect())
}

/// [`map_null_values_as_default`] for optional maps: `null` for the map is `None`.
pub fn optional_map_null_values_as_default<'de, D, V>(
    deserializer: D,
) -> Result<Option<std::collections::BTreeMap<String, V>>, D::Error>
where
    D: Deserializer<'de>,
    V: Default + Deserialize<'de>,
{
    let map = Option::<std::collections::BTreeMap<String, Option<V>>>::deserialize(deserializer)?;
    Ok(map.map(|map| map.into_iter().map(|(key, value)| (key, value.unwrap_or_default())).collect()))
}
