//! `io.k8s.apimachinery.pkg.util.intstr.IntOrString` and `x-kubernetes-int-or-string`.

use std::fmt;

use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// A value that is either a 32-bit integer or a string, such as a port (`8080` or `"http"`)
/// or a percentage (`"25%"`).
///
/// On the wire a JSON number is an [`Int`](IntOrString::Int) and a JSON string is a
/// [`String`](IntOrString::String), even when the string holds digits (`"80"` stays a string).
/// Numbers must be integers in the `i32` range, as in Kubernetes (`1.5`, `1.0` and
/// `2147483648` are rejected). `null` decodes as `Int(0)`, the Go zero value; an
/// `Option<IntOrString>` field decodes `null` as `None` before this type sees it.
///
/// The [`Default`] is `Int(0)`, the Go zero value. Ordering puts every `Int` before every
/// `String`; it exists for sorted containers, not for comparing amounts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntOrString {
    /// The integer form, a JSON number.
    Int(i32),
    /// The string form, a JSON string.
    String(String),
}

impl IntOrString {
    /// The string, if this is the string form.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            IntOrString::Int(_) => None,
            IntOrString::String(s) => Some(s),
        }
    }

    /// The integer, if this is the integer form.
    pub fn as_int(&self) -> Option<i32> {
        match self {
            IntOrString::Int(i) => Some(*i),
            IntOrString::String(_) => None,
        }
    }
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl fmt::Display for IntOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrString::Int(i) => fmt::Display::fmt(i, f),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

impl From<i32> for IntOrString {
    fn from(value: i32) -> Self {
        IntOrString::Int(value)
    }
}

impl From<&str> for IntOrString {
    fn from(value: &str) -> Self {
        IntOrString::String(value.to_owned())
    }
}

impl From<String> for IntOrString {
    fn from(value: String) -> Self {
        IntOrString::String(value)
    }
}

/// The JSON value Kubernetes would show for this field, e.g. as a field error's bad value.
impl From<&IntOrString> for serde_json::Value {
    fn from(value: &IntOrString) -> Self {
        match value {
            IntOrString::Int(i) => serde_json::Value::from(*i),
            IntOrString::String(s) => serde_json::Value::from(s.as_str()),
        }
    }
}

impl Serialize for IntOrString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            IntOrString::Int(i) => serializer.serialize_i32(*i),
            IntOrString::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IntOrStringVisitor)
    }
}

struct IntOrStringVisitor;

impl IntOrStringVisitor {
    fn int<E: de::Error>(self, value: i128) -> Result<IntOrString, E> {
        match i32::try_from(value) {
            Ok(i) => Ok(IntOrString::Int(i)),
            Err(_) => Err(match i64::try_from(value) {
                Ok(v) => E::invalid_value(Unexpected::Signed(v), &self),
                Err(_) => E::custom(format_args!("invalid value: integer `{value}`, expected {}", Expected)),
            }),
        }
    }
}

/// What the visitor expects, for error messages.
struct Expected;

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer in the range of a 32-bit signed integer, or a string")
    }
}

impl<'de> Visitor<'de> for IntOrStringVisitor {
    type Value = IntOrString;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Expected, f)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntOrString, E> {
        self.int(i128::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntOrString, E> {
        self.int(i128::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<IntOrString, E> {
        self.int(v)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<IntOrString, E> {
        match i128::try_from(v) {
            Ok(v) => self.int(v),
            Err(_) => Err(E::custom(format_args!("invalid value: integer `{v}`, expected {Expected}"))),
        }
    }

    // Kubernetes decodes a number into an int32, which rejects any fraction or exponent,
    // even `1.0`.
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<IntOrString, E> {
        Err(E::invalid_type(Unexpected::Float(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<IntOrString, E> {
        Ok(IntOrString::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<IntOrString, E> {
        Ok(IntOrString::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<IntOrString, E> {
        Ok(IntOrString::default())
    }
}
