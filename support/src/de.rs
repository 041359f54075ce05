//! Serde helpers that generated models use.

use serde::{Deserialize, Deserializer};

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
