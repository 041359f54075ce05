//! [`Value`] for scalars, byte strings, free-form JSON and lists that are one field's value.

use prost::encoding::{decode_varint, encode_varint};

use super::{
    DecodeError, Depth, Value, WireType, check_wire_type, for_each_field, length_delimited, length_prefixed,
    merge_repeated, skip,
};
use crate::Bytes;

/// A varint read as Go's generated code reads it: the low bits of the 64-bit value.
fn varint(wire_type: WireType, buf: &mut &[u8]) -> Result<u64, DecodeError> {
    check_wire_type(WireType::Varint, wire_type)?;
    Ok(decode_varint(buf)?)
}

impl Value for i32 {
    const WIRE_TYPE: WireType = WireType::Varint;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        // Negative int32 values are sign-extended to ten bytes, as protobuf requires.
        encode_varint(i64::from(*self) as u64, buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        *self = varint(wire_type, buf)? as i32;
        Ok(())
    }
}

impl Value for i64 {
    const WIRE_TYPE: WireType = WireType::Varint;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        encode_varint(*self as u64, buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        *self = varint(wire_type, buf)? as i64;
        Ok(())
    }
}

impl Value for bool {
    const WIRE_TYPE: WireType = WireType::Varint;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        buf.push(u8::from(*self));
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        *self = varint(wire_type, buf)? != 0;
        Ok(())
    }
}

impl Value for f64 {
    const WIRE_TYPE: WireType = WireType::SixtyFourBit;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.to_le_bytes());
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        check_wire_type(WireType::SixtyFourBit, wire_type)?;
        let Some((bytes, rest)) = buf.split_first_chunk::<8>() else {
            return Err(DecodeError::new("unexpected EOF"));
        };
        *self = f64::from_le_bytes(*bytes);
        *buf = rest;
        Ok(())
    }
}

/// Writes a length-delimited payload.
pub fn encode_bytes(bytes: &[u8], buf: &mut Vec<u8>) {
    encode_varint(bytes.len() as u64, buf);
    buf.extend_from_slice(bytes);
}

/// Reads a `string` payload; one that is not UTF-8 is an error.
pub fn read_string(wire_type: WireType, buf: &mut &[u8]) -> Result<String, DecodeError> {
    let bytes = length_delimited(wire_type, buf)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError::new("proto: string field is not valid UTF-8"))
}

/// Writes a `string` payload (string enums write their value with it).
pub fn encode_str(value: &str, buf: &mut Vec<u8>) {
    encode_bytes(value.as_bytes(), buf);
}

impl Value for String {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        encode_str(self, buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        *self = read_string(wire_type, buf)?;
        Ok(())
    }
}

impl Value for Bytes {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        encode_bytes(&self.0, buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], _depth: Depth) -> Result<(), DecodeError> {
        self.0 = length_delimited(wire_type, buf)?.to_vec();
        Ok(())
    }
}

/// Free-form JSON (`RawExtension`, `FieldsV1`): a message whose `bytes` field 1 holds the
/// JSON text. `null` is the empty message.
impl Value for serde_json::Value {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        length_prefixed(buf, |buf| {
            if !self.is_null() {
                buf.push(0x0a);
                // Writing JSON into a Vec cannot fail.
                length_prefixed(buf, |buf| drop(serde_json::to_writer(buf, self)));
            }
        });
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        let mut raw = Bytes::default();
        for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| match number {
            1 => raw.merge_value(wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        })?;
        *self = if raw.0.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&raw.0)
                .map_err(|e| DecodeError::new(format!("raw bytes of an embedded object are not JSON: {e}")))?
        };
        Ok(())
    }
}

/// A list that is one field's value (`optional Verbs verbs`, the values of
/// `map<string, ExtraValue>`): a message whose `repeated` field 1 holds the items.
impl<T: Value> Value for Vec<T> {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        length_prefixed(buf, |buf| super::encode_repeated(1, self, buf));
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| match number {
            1 => merge_repeated(self, wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        })
    }
}
