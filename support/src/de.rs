//! Serde helpers that generated models use.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
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
pub fn map_null_values_as_default<'de, D, V>(deserializer: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Default + Deserialize<'de>,
{
    Ok(Option::<NullValuesAsDefault<V>>::deserialize(deserializer)?.map(|map| map.0).unwrap_or_default())
}

/// [`map_null_values_as_default`] for optional maps: `null` for the map is `None`.
pub fn optional_map_null_values_as_default<'de, D, V>(deserializer: D) -> Result<Option<BTreeMap<String, V>>, D::Error>
where
    D: Deserializer<'de>,
    V: Default + Deserialize<'de>,
{
    Ok(Option::<NullValuesAsDefault<V>>::deserialize(deserializer)?.map(|map| map.0))
}

/// A map whose `null` values are decoded as their default, built as it is read (a later
/// duplicate key replacing an earlier one, as for any map).
struct NullValuesAsDefault<V>(BTreeMap<String, V>);

impl<'de, V: Default + Deserialize<'de>> Deserialize<'de> for NullValuesAsDefault<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);

        impl<'de, V: Default + Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = NullValuesAsDefault<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
                let mut map = BTreeMap::new();
                while let Some((key, value)) = entries.next_entry::<String, Option<V>>()? {
                    map.insert(key, value.unwrap_or_default());
                }
                Ok(NullValuesAsDefault(map))
            }
        }

        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// Decodes a string into a generated string enum without copying it when the decoder lends
/// it (`serde_json` does for strings without escapes): a known value is matched on the
/// borrowed text, and only an unknown one, kept in the enum's catch-all variant, is copied.
/// Anything but a string is refused as `String` refuses it (`expected a string`).
pub fn string_enum<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: for<'a> From<&'a str> + From<String>,
{
    struct EnumVisitor<T>(PhantomData<T>);

    impl<T: for<'a> From<&'a str> + From<String>> Visitor<'_> for EnumVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<T, E> {
            Ok(T::from(value))
        }

        fn visit_string<E: serde::de::Error>(self, value: String) -> Result<T, E> {
            Ok(T::from(value))
        }

        fn visit_bytes<E: serde::de::Error>(self, value: &[u8]) -> Result<T, E> {
            std::str::from_utf8(value)
                .map(T::from)
                .map_err(|_| E::invalid_value(serde::de::Unexpected::Bytes(value), &self))
        }
    }

    deserializer.deserialize_string(EnumVisitor(PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string enum as the generator writes one.
    #[derive(Debug, PartialEq)]
    enum Policy {
        Always,
        Other(String),
    }

    impl From<&str> for Policy {
        fn from(value: &str) -> Self {
            match value {
                "Always" => Policy::Always,
                _ => Policy::Other(value.to_owned()),
            }
        }
    }

    impl From<String> for Policy {
        fn from(value: String) -> Self {
            match value.as_str() {
                "Always" => Policy::Always,
                _ => Policy::Other(value),
            }
        }
    }

    fn decode(json: &str) -> Result<Policy, String> {
        string_enum(&mut serde_json::Deserializer::from_str(json)).map_err(|e| e.to_string())
    }

    #[test]
    fn string_enums_decode_borrowed_escaped_and_owned_text() {
        assert_eq!(decode(r#""Always""#), Ok(Policy::Always));
        assert_eq!(decode(r#""Alw\u0061ys""#), Ok(Policy::Always), "escaped: decoded into a buffer first");
        assert_eq!(decode(r#""Never""#), Ok(Policy::Other("Never".to_owned())));
        let owned = string_enum::<_, Policy>(serde_json::Value::String("Sometimes".to_owned()));
        assert_eq!(owned.map_err(|e| e.to_string()), Ok(Policy::Other("Sometimes".to_owned())));
    }

    #[test]
    fn null_map_values_decode_as_their_default() {
        let decode = |json: &str| {
            optional_map_null_values_as_default::<_, Vec<String>>(&mut serde_json::Deserializer::from_str(json))
                .map_err(|e| e.to_string())
        };
        let expected = BTreeMap::from([("a".to_owned(), vec![]), ("b".to_owned(), vec!["x".to_owned()])]);
        assert_eq!(decode(r#"{"b": ["x"], "a": null}"#), Ok(Some(expected)));
        assert_eq!(decode("null"), Ok(None));
        assert_eq!(
            decode(r#"{"a": ["x"], "a": ["y"]}"#),
            Ok(Some(BTreeMap::from([("a".to_owned(), vec!["y".to_owned()])])))
        );
        let as_maps = serde_json::from_str::<Option<BTreeMap<String, Option<Vec<String>>>>>("[]").unwrap_err();
        assert_eq!(decode("[]").unwrap_err(), as_maps.to_string(), "refused as any map is");
        let required = map_null_values_as_default::<_, String>(&mut serde_json::Deserializer::from_str("null"));
        assert_eq!(required.map_err(|e| e.to_string()), Ok(BTreeMap::new()));
    }

    #[test]
    fn string_enums_refuse_what_a_string_refuses() {
        let ours = decode("1").unwrap_err();
        let strings = serde_json::from_str::<String>("1").unwrap_err().to_string();
        assert_eq!(ours, strings);
        assert!(decode("null").is_err());
    }
}
