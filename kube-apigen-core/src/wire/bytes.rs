//! `format: byte`: binary data as base64.

use std::fmt;

use base64::Engine as _;
use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// Binary data, written on the wire as standard base64 with padding (RFC 4648 §4), as Go's
/// `encoding/json` writes a `[]byte`.
///
/// On input, as in Go ([`crate::go::base64::decode`]), line breaks (`\r`, `\n`) inside the
/// text are ignored, padding is required and the unused bits of the last character may be
/// anything; `null` decodes as empty data (Go's nil slice). Formats that carry raw bytes
/// may also hand them over directly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// The data.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }

    /// The base64 text, as on the wire.
    pub fn to_base64(&self) -> String {
        crate::go::base64::STD.encode(&self.0)
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(value: Vec<u8>) -> Self {
        Bytes(value)
    }
}

impl From<&[u8]> for Bytes {
    fn from(value: &[u8]) -> Self {
        Bytes(value.to_vec())
    }
}

impl From<Bytes> for Vec<u8> {
    fn from(value: Bytes) -> Self {
        value.0
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BytesVisitor)
    }
}

struct BytesVisitor;

impl Visitor<'_> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a base64-encoded string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
        crate::go::base64::decode(v).map(Bytes).map_err(|e| E::custom(format_args!("invalid base64 data: {e}")))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Bytes, E> {
        Ok(Bytes::default())
    }
}
