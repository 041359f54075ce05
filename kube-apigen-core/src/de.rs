//! Serde helpers that generated models use.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A struct that generated models decode field by field, as Go's `encoding/json` decodes
/// into a struct: every field starts at its default ([`Default`], which gives the spec's
/// defaults), each key present replaces its field (a repeated key: the last one wins), keys
/// the type does not have are skipped, or kept where the type keeps them
/// (`x-kubernetes-preserve-unknown-fields`). Anything but an object is refused with
/// `expected struct <NAME>`.
///
/// Written out rather than derived: a derived `Deserialize` costs several times the build
/// time of this impl per type, and decodes no faster.
///
/// ```
/// use serde::de::MapAccess;
/// use kube_apigen_core::de;
///
/// #[derive(Debug, Default, PartialEq)]
/// struct Spec {
///     replicas: i32,
///     selector: Option<String>,
/// }
///
/// impl de::Object for Spec {
///     const NAME: &'static str = "Spec";
///     const FIELDS: &'static [&'static str] = &["replicas", "selector"];
///
///     fn field(key: &str) -> Option<usize> {
///         match key {
///             "replicas" => Some(0),
///             "selector" => Some(1),
///             _ => None,
///         }
///     }
///
///     fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
///         match index {
///             0 => de::read_or_default(map, &mut self.replicas),
///             _ => de::read(map, &mut self.selector),
///         }
///     }
/// }
///
/// let spec: Spec = de::object(&mut serde_json::Deserializer::from_str(r#"{"replicas": null, "other": 1}"#)).unwrap();
/// assert_eq!(spec, Spec { replicas: 0, selector: None });
/// ```
pub trait Object: Default {
    /// The type's name, as errors show it.
    const NAME: &'static str;
    /// The fields' wire names.
    const FIELDS: &'static [&'static str];

    /// The index in [`FIELDS`](Self::FIELDS) of the field named `key`. Generated models
    /// answer with a `match`, which compiles to fewer comparisons than this search.
    fn field(key: &str) -> Option<usize> {
        Self::FIELDS.iter().position(|field| *field == key)
    }

    /// Decodes the value of field `index` from `map` into `self`, with one of this
    /// module's `read` functions.
    fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error>;

    /// Where the type keeps the fields it does not declare, if it keeps them.
    fn unknown_fields(&mut self) -> Option<&mut BTreeMap<String, Value>> {
        None
    }
}

/// Decodes an [`Object`]: the body of a generated model's `Deserialize` impl.
pub fn object<'de, D: Deserializer<'de>, T: Object>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_struct(T::NAME, T::FIELDS, ObjectVisitor(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Object> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", T::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut object = T::default();
        let keep_unknown = object.unknown_fields().is_some();
        while let Some(key) = map.next_key_seed(KeySeed::<T> { keep_unknown, object: PhantomData })? {
            match key {
                Key::Field(index) => object.read_field(index, &mut map)?,
                Key::Unknown(Some(name)) => {
                    let value = map.next_value()?;
                    object.unknown_fields().map(|fields| fields.insert(name, value));
                }
                Key::Unknown(None) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(object)
    }
}

/// A key of an [`Object`]: the index of a field, or a field the type does not declare,
/// with its name when the type keeps such fields.
enum Key {
    Field(usize),
    Unknown(Option<String>),
}

/// Reads a key as an identifier, which is also how `serde_ignored` learns the names of
/// the fields skipped.
struct KeySeed<T> {
    keep_unknown: bool,
    object: PhantomData<T>,
}

impl<'de, T: Object> DeserializeSeed<'de> for KeySeed<T> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<T: Object> Visitor<'_> for KeySeed<T> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match T::field(key) {
            Some(index) => Key::Field(index),
            None => Key::Unknown(self.keep_unknown.then(|| key.to_owned())),
        })
    }

    fn visit_bytes<E: serde::de::Error>(self, key: &[u8]) -> Result<Key, E> {
        self.visit_str(&String::from_utf8_lossy(key))
    }
}

/// Reads a field's value as its type decodes it (`null` is `None` for an `Option`).
pub fn read<'de, A: MapAccess<'de>, T: Deserialize<'de>>(map: &mut A, field: &mut T) -> Result<(), A::Error> {
    *field = map.next_value()?;
    Ok(())
}

/// Reads a field's value, `null` as `default()`: for fields with a structural default,
/// which the API server applies to a `null` it drops (the schema not being `nullable`).
pub fn read_or<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    field: &mut T,
    default: fn() -> T,
) -> Result<(), A::Error> {
    *field = map.next_value::<Option<T>>()?.unwrap_or_else(default);
    Ok(())
}

/// Reads a field's value, `null` as the type's default, the way Go decodes `null` into a
/// non-pointer field: for required fields, which Kubernetes may send as `null` (a nil
/// slice, for example).
pub fn read_or_default<'de, A: MapAccess<'de>, T: Default + Deserialize<'de>>(
    map: &mut A,
    field: &mut T,
) -> Result<(), A::Error> {
    *field = map.next_value::<Option<T>>()?.unwrap_or_default();
    Ok(())
}

/// Reads a required map whose values may be `null`, as their default: Go decodes
/// `{"scopes": null}` into a `map[string][]string` as a nil slice; `null` for the map
/// itself is the empty map.
pub fn read_map<'de, A: MapAccess<'de>, V: Default + Deserialize<'de>>(
    map: &mut A,
    field: &mut BTreeMap<String, V>,
) -> Result<(), A::Error> {
    *field = map.next_value::<Option<NullValuesAsDefault<V>>>()?.map(|map| map.0).unwrap_or_default();
    Ok(())
}

/// [`read_map`] for an optional map: `null` for the map is `None`.
pub fn read_optional_map<'de, A: MapAccess<'de>, V: Default + Deserialize<'de>>(
    map: &mut A,
    field: &mut Option<BTreeMap<String, V>>,
) -> Result<(), A::Error> {
    *field = map.next_value::<Option<NullValuesAsDefault<V>>>()?.map(|map| map.0);
    Ok(())
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

    /// An object as the generator writes one, with a field read by each `read` function.
    #[derive(Debug, PartialEq)]
    struct Spec {
        name: String,
        replicas: Option<i32>,
        policy: Option<String>,
        scopes: BTreeMap<String, Vec<String>>,
        labels: Option<BTreeMap<String, String>>,
        unknown_fields: BTreeMap<String, Value>,
    }

    impl Default for Spec {
        fn default() -> Self {
            Spec {
                name: String::new(),
                replicas: None,
                policy: Self::default_policy(),
                scopes: BTreeMap::new(),
                labels: None,
                unknown_fields: BTreeMap::new(),
            }
        }
    }

    impl Spec {
        fn default_policy() -> Option<String> {
            Some("Always".to_owned())
        }
    }

    impl Object for Spec {
        const NAME: &'static str = "Spec";
        const FIELDS: &'static [&'static str] = &["name", "replicas", "policy", "scopes", "labels"];

        fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
            match index {
                0 => read_or_default(map, &mut self.name),
                1 => read(map, &mut self.replicas),
                2 => read_or(map, &mut self.policy, Self::default_policy),
                3 => read_map(map, &mut self.scopes),
                _ => read_optional_map(map, &mut self.labels),
            }
        }

        fn unknown_fields(&mut self) -> Option<&mut BTreeMap<String, Value>> {
            Some(&mut self.unknown_fields)
        }
    }

    /// [`Spec`] without the fields it does not declare.
    #[derive(Debug, Default, PartialEq)]
    struct Strict(Spec);

    impl Object for Strict {
        const NAME: &'static str = "Strict";
        const FIELDS: &'static [&'static str] = Spec::FIELDS;

        fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
            self.0.read_field(index, map)
        }
    }

    impl<'de> Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            object(deserializer)
        }
    }

    fn decode_object<T: Object>(json: &str) -> Result<T, String> {
        object(&mut serde_json::Deserializer::from_str(json)).map_err(|e| e.to_string())
    }

    #[test]
    fn objects_start_from_their_defaults_and_take_null_as_go_does() {
        assert_eq!(decode_object::<Spec>("{}"), Ok(Spec::default()));
        let nulls = r#"{"name": null, "replicas": null, "policy": null, "scopes": null, "labels": null}"#;
        assert_eq!(decode_object::<Spec>(nulls), Ok(Spec::default()), "each field's null is its default");
        let spec = decode_object::<Spec>(
            r#"{"name": "a", "replicas": 2, "policy": "Never", "scopes": {"x": null, "y": ["z"]}, "labels": {}}"#,
        )
        .unwrap();
        assert_eq!((spec.name.as_str(), spec.replicas, spec.policy.as_deref()), ("a", Some(2), Some("Never")));
        assert_eq!(spec.scopes, BTreeMap::from([("x".to_owned(), vec![]), ("y".to_owned(), vec!["z".to_owned()])]));
        assert_eq!(spec.labels, Some(BTreeMap::new()));
    }

    #[test]
    fn objects_keep_the_last_of_a_repeated_key_and_unknown_fields_where_they_are_kept() {
        let spec = decode_object::<Spec>(r#"{"name": "a", "extra": {"b": 1}, "name": "c"}"#).unwrap();
        assert_eq!(spec.name, "c", "the last value wins, as in Go");
        assert_eq!(spec.unknown_fields, BTreeMap::from([("extra".to_owned(), serde_json::json!({"b": 1}))]));
        let strict = decode_object::<Strict>(r#"{"extra": {"b": 1}, "name": "a"}"#).unwrap();
        assert_eq!((strict.0.name.as_str(), strict.0.unknown_fields.len()), ("a", 0));
    }

    #[test]
    fn objects_refuse_other_json_naming_the_type() {
        assert_eq!(
            decode_object::<Spec>("[]").unwrap_err(),
            "invalid type: sequence, expected struct Spec at line 1 column 2"
        );
        assert_eq!(
            decode_object::<Spec>("null").unwrap_err(),
            "invalid type: null, expected struct Spec at line 1 column 4"
        );
        let error = decode_object::<Spec>(r#"{"replicas": "2"}"#).unwrap_err();
        assert_eq!(error, "invalid type: string \"2\", expected i32 at line 1 column 16");
    }

    #[test]
    fn skipped_fields_are_seen_by_serde_ignored() {
        let mut skipped = Vec::new();
        let json = r#"{"name": "a", "extra": 1}"#;
        let strict: Strict = serde_ignored::deserialize(&mut serde_json::Deserializer::from_str(json), |path| {
            skipped.push(path.to_string())
        })
        .unwrap();
        assert_eq!((strict.0.name.as_str(), skipped), ("a", vec!["extra".to_owned()]));
    }

    #[test]
    fn string_enums_refuse_what_a_string_refuses() {
        let ours = decode("1").unwrap_err();
        let strings = serde_json::from_str::<String>("1").unwrap_err().to_string();
        assert_eq!(ours, strings);
        assert!(decode("null").is_err());
    }
}
