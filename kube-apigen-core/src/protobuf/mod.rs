//! Kubernetes' protobuf encoding: the field codecs generated models are written with, the
//! hand-written codecs of the runtime's wire types, the `k8s\0` envelope and watch
//! frames.
//!
//! Kubernetes' messages are proto2 (`generated.proto` of each API group). A generated
//! model implements [`Message`] by naming each field's number; how a value is written
//! follows from its Rust type ([`Value`]): strings, integers, booleans and doubles as
//! scalars; [`Bytes`](crate::Bytes) as bytes; string enums as their string (an unknown
//! value survives); structs, [`Time`](crate::Time), [`Quantity`](crate::Quantity),
//! [`IntOrString`](crate::IntOrString) and the `Status` types as messages; a free-form JSON
//! value (`RawExtension`, `FieldsV1`) as a message holding its JSON text in a `bytes` field;
//! a list that is a field's single value (`optional Verbs verbs`, a map of
//! `ExtraValue`) as a message whose `repeated` field 1 holds the items.
//!
//! A field present on the wire is present in the model, even when it holds the zero value:
//! Go writes every non-pointer field, so objects Go clients send carry explicit empty
//! strings and zeros where their JSON would leave the field out. An empty list or map is
//! absent on the wire and decodes as absent. Fields a model does not know are skipped.
//!
//! The wire primitives (varints, keys, skipping) are prost's.

mod envelope;
mod scalars;
mod wellknown;

use std::collections::BTreeMap;
use std::fmt;

pub use prost::encoding::WireType;
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, encoded_len_varint};

pub use envelope::{CONTENT_TYPE, MAGIC, STREAM_CONTENT_TYPE, Unknown, decode_envelope, encode_envelope, watch_frame};
pub use scalars::{encode_bytes, encode_str, read_string};
pub use wellknown::{MESSAGE_LAYOUTS, MessageLayout};

/// Why protobuf bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(String);

impl DecodeError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        DecodeError(message.into())
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

impl From<prost::DecodeError> for DecodeError {
    fn from(error: prost::DecodeError) -> Self {
        let text = error.to_string();
        let text = text.strip_prefix("failed to decode Protobuf message: ").unwrap_or(&text);
        DecodeError(format!("proto: {text}"))
    }
}

/// How many more messages may be nested inside the one being decoded: input nested
/// deeper is an error, not a stack overflow.
#[derive(Clone, Copy, Debug)]
pub struct Depth(u32);

impl Depth {
    /// Nesting allowed below a top-level message.
    pub const LIMIT: Depth = Depth(100);

    fn enter(self) -> Result<Depth, DecodeError> {
        match self.0.checked_sub(1) {
            Some(left) => Ok(Depth(left)),
            None => Err(DecodeError::new("proto: messages nested too deeply")),
        }
    }
}

/// A protobuf message: a struct whose fields have numbers.
pub trait Message: Default {
    /// Writes every field that is set (a required field always), in number order.
    fn encode_fields(&self, buf: &mut Vec<u8>);

    /// Reads field `number` into `self`; unknown numbers are skipped with [`skip`].
    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError>;

    /// Sets `apiVersion` and `kind`, which the envelope carries rather than the message,
    /// on a type that has them.
    fn set_type_meta(&mut self, _api_version: &str, _kind: &str) {}
}

/// A value that is one protobuf field's payload (not a `repeated` or `map` field: those
/// are several values).
pub trait Value: Default {
    /// The wire type of the field's key: varint, 64-bit or length-delimited.
    const WIRE_TYPE: WireType;

    /// Writes the payload (a length-delimited value with its length).
    fn encode_value(&self, buf: &mut Vec<u8>);

    /// Reads a payload written with `wire_type` into `self`: replaces a scalar, merges a
    /// message.
    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError>;
}

impl<M: Message> Value for M {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        length_prefixed(buf, |buf| self.encode_fields(buf));
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| {
            self.merge_field(number, wire_type, buf, depth)
        })
    }
}

/// Writes what `write` writes, preceded by its length, in one pass: a one-byte length is
/// reserved, and the payload moved along when its length needs more bytes (only payloads
/// of 128 bytes or more), so that no length is computed before writing.
pub(crate) fn length_prefixed(buf: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    let at = buf.len();
    buf.push(0);
    write(buf);
    let len = buf.len() - at - 1;
    let width = encoded_len_varint(len as u64);
    if width > 1 {
        buf.splice(at + 1..at + 1, std::iter::repeat_n(0, width - 1));
    }
    let mut slot = &mut buf[at..at + width];
    encode_varint(len as u64, &mut slot);
}

/// Calls `field` for each field of the length-delimited message payload at the start of
/// `buf`, one level deeper.
fn for_each_field(
    wire_type: WireType,
    buf: &mut &[u8],
    depth: Depth,
    mut field: impl FnMut(u32, WireType, &mut &[u8], Depth) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let mut fields = length_delimited(wire_type, buf)?;
    let depth = depth.enter()?;
    while !fields.is_empty() {
        let (number, wire_type) = decode_key(&mut fields)?;
        field(number, wire_type, &mut fields, depth)?;
    }
    Ok(())
}

/// Reads every field of `buf` into `message`.
fn merge_fields<M: Message>(message: &mut M, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
    while !buf.is_empty() {
        let (number, wire_type) = decode_key(buf)?;
        message.merge_field(number, wire_type, buf, depth)?;
    }
    Ok(())
}

/// The payload of a length-delimited value, taken off `buf`.
fn length_delimited<'a>(wire_type: WireType, buf: &mut &'a [u8]) -> Result<&'a [u8], DecodeError> {
    check_wire_type(WireType::LengthDelimited, wire_type)?;
    let len = decode_varint(buf)?;
    if len > buf.len() as u64 {
        return Err(DecodeError::new("unexpected EOF"));
    }
    let (payload, rest) = buf.split_at(len as usize);
    *buf = rest;
    Ok(payload)
}

fn check_wire_type(expected: WireType, actual: WireType) -> Result<(), DecodeError> {
    if expected == actual {
        Ok(())
    } else {
        Err(DecodeError::new(format!("proto: wrong wireType = {} for field", actual as u8)))
    }
}

/// The message's bytes (no envelope).
pub fn encode_message<M: Message>(message: &M) -> Vec<u8> {
    let mut buf = Vec::new();
    message.encode_fields(&mut buf);
    buf
}

/// A message from its bytes (no envelope).
pub fn decode_message<M: Message>(mut bytes: &[u8]) -> Result<M, DecodeError> {
    let mut message = M::default();
    merge_fields(&mut message, &mut bytes, Depth::LIMIT)?;
    Ok(message)
}

/// Writes field `number` holding `value`.
pub fn encode<T: Value>(number: u32, value: &T, buf: &mut Vec<u8>) {
    encode_key(number, T::WIRE_TYPE, buf);
    value.encode_value(buf);
}

/// Writes the `string` field `number` holding `value`.
pub fn encode_string(number: u32, value: &str, buf: &mut Vec<u8>) {
    encode_key(number, WireType::LengthDelimited, buf);
    encode_str(value, buf);
}

/// Writes field `number` when `value` is set.
pub fn encode_optional<T: Value>(number: u32, value: Option<&T>, buf: &mut Vec<u8>) {
    if let Some(value) = value {
        encode(number, value, buf);
    }
}

/// Reads a value into `value` (replacing a scalar, merging a message).
pub fn merge<T: Value>(value: &mut T, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
    value.merge_value(wire_type, buf, depth)
}

/// Reads an optional string (or string enum) field: an empty string is unset, as Go's
/// JSON leaves out the empty value a plain string field always writes in protobuf.
pub fn merge_text<T: Value + Default + PartialEq>(
    value: &mut Option<T>,
    wire_type: WireType,
    buf: &mut &[u8],
    depth: Depth,
) -> Result<(), DecodeError> {
    let mut read = T::default();
    read.merge_value(wire_type, buf, depth)?;
    *value = (read != T::default()).then_some(read);
    Ok(())
}

/// Writes field `number` as the message of what `write` writes: the fields of a Go struct
/// embedded in the one being written, which JSON inlines and protobuf nests. Go writes
/// the field even when none of them is set.
pub fn encode_embedded(number: u32, buf: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    encode_key(number, WireType::LengthDelimited, buf);
    length_prefixed(buf, write);
}

/// Reads one occurrence of the field written by [`encode_embedded`]: `field` reads each
/// field of the embedded struct into the struct holding it.
pub fn merge_embedded(
    wire_type: WireType,
    buf: &mut &[u8],
    depth: Depth,
    field: impl FnMut(u32, WireType, &mut &[u8], Depth) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    for_each_field(wire_type, buf, depth, field)
}

/// Writes the `repeated` field `number`: one field per item, unpacked, as Go writes it.
pub fn encode_repeated<T: Value>(number: u32, values: &[T], buf: &mut Vec<u8>) {
    for value in values {
        encode(number, value, buf);
    }
}

/// Reads one occurrence of a `repeated` field: one item, or a packed run of numbers.
pub fn merge_repeated<T: Value>(
    values: &mut Vec<T>,
    wire_type: WireType,
    buf: &mut &[u8],
    depth: Depth,
) -> Result<(), DecodeError> {
    if wire_type == WireType::LengthDelimited && T::WIRE_TYPE != WireType::LengthDelimited {
        let mut packed = length_delimited(wire_type, buf)?;
        while !packed.is_empty() {
            let mut value = T::default();
            value.merge_value(T::WIRE_TYPE, &mut packed, depth)?;
            values.push(value);
        }
        return Ok(());
    }
    let mut value = T::default();
    value.merge_value(wire_type, buf, depth)?;
    values.push(value);
    Ok(())
}

/// Writes the `map<string, V>` field `number`: one entry message per key (key 1, value 2,
/// both always written, as Go writes them).
pub fn encode_map<V: Value>(number: u32, map: &BTreeMap<String, V>, buf: &mut Vec<u8>) {
    for (key, value) in map {
        encode_key(number, WireType::LengthDelimited, buf);
        length_prefixed(buf, |buf| {
            encode(1, key, buf);
            encode(2, value, buf);
        });
    }
}

/// Reads one entry of a `map<string, V>` field; a missing key or value is its zero value.
pub fn merge_map<V: Value>(
    map: &mut BTreeMap<String, V>,
    wire_type: WireType,
    buf: &mut &[u8],
    depth: Depth,
) -> Result<(), DecodeError> {
    let (mut key, mut value) = (String::new(), V::default());
    for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| match number {
        1 => key.merge_value(wire_type, buf, depth),
        2 => value.merge_value(wire_type, buf, depth),
        _ => skip(number, wire_type, buf, depth),
    })?;
    map.insert(key, value);
    Ok(())
}

/// Skips a field this model does not know.
pub fn skip(number: u32, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
    prost::encoding::skip_field(wire_type, number, buf, prost::encoding::DecodeContext::default())
        .map_err(DecodeError::from)
}

/// A type a request or response body can be: JSON and YAML through serde; protobuf when
/// it has a message. Generated models that are request or response bodies implement it.
pub trait Payload: serde::Serialize + Sized {
    /// The name of the Go type the API server decodes such a body into
    /// (`HorizontalPodAutoscaler`, `DeleteOptions`): what its decode errors name. For a
    /// generated model, its schema's name.
    const GO_TYPE: &'static str;

    /// The protobuf codec, when the type has a message.
    const PROTOBUF: Option<Codec<Self>> = None;
}

/// Encodes a message (without the envelope) and decodes one from its envelope, with the
/// `apiVersion` and `kind` its envelope names, when the type has exactly one.
pub struct Codec<T> {
    /// Writes the message, without an envelope.
    pub encode: fn(&T) -> Vec<u8>,
    /// Reads the object in an envelope, with the envelope's `apiVersion` and `kind`.
    pub decode: fn(&Unknown<'_>) -> Result<T, DecodeError>,
    /// The `apiVersion` and `kind` of the type; `None` for a type that is no one kind
    /// (`DeleteOptions`), which is read from any envelope and written under the resource's.
    pub type_meta: Option<(&'static str, &'static str)>,
}

impl<T> Clone for Codec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Codec<T> {}

impl<M: Message> Codec<M> {
    /// The codec of a [`Message`] of kind `kind` in `api_version`.
    pub const fn message(api_version: &'static str, kind: &'static str) -> Codec<M> {
        Codec { encode: encode_message::<M>, decode: decode_object::<M>, type_meta: Some((api_version, kind)) }
    }

    /// The codec of a [`Message`] that is not one kind (its envelope names the resource's).
    pub const UNTYPED: Codec<M> = Codec { encode: encode_message::<M>, decode: decode_object::<M>, type_meta: None };
}

/// The object in an envelope, with the envelope's `apiVersion` and `kind`, as the API
/// server's decoder sets them.
fn decode_object<M: Message>(envelope: &Unknown<'_>) -> Result<M, DecodeError> {
    let mut object: M = decode_message(envelope.raw)?;
    object.set_type_meta(&envelope.api_version, &envelope.kind);
    Ok(object)
}

/// Any JSON, as the API server's `Unstructured` holds custom resources.
impl Payload for serde_json::Value {
    const GO_TYPE: &'static str = "Unstructured";
}
