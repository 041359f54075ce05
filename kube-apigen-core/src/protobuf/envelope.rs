//! The envelope of a protobuf body (`k8s\0` and a `runtime.Unknown`) and watch frames.

use prost::encoding::{WireType, decode_key, encode_key};

use super::scalars::encode_bytes;
use super::{DecodeError, Depth, encode_string, for_each_field, length_prefixed, merge, skip};

/// The media type of Kubernetes' protobuf encoding.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The media type of a watch stream in protobuf.
pub const STREAM_CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// What every protobuf body starts with: `k8s` and the encoding style 0, which says a
/// `runtime.Unknown` message follows.
pub const MAGIC: [u8; 4] = *b"k8s\0";

/// A decoded envelope (`runtime.Unknown`): the type of the object and its message bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unknown<'a> {
    /// The `apiVersion` of the envelope's `typeMeta`; may be empty.
    pub api_version: String,
    /// The `kind` of the envelope's `typeMeta`; may be empty.
    pub kind: String,
    /// The object's own message.
    pub raw: &'a [u8],
    /// `contentEncoding`; empty in what the API server writes.
    pub content_encoding: String,
    /// `contentType`; empty in what the API server writes (the message is protobuf).
    pub content_type: String,
}

/// `raw` (the object's message bytes) in an envelope naming its `apiVersion` and `kind`,
/// as the API server writes it: `typeMeta` (both always written), `raw`, and empty
/// `contentEncoding` and `contentType`.
pub fn encode_envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(raw.len() + api_version.len() + kind.len() + 32);
    buf.extend_from_slice(&MAGIC);
    encode_key(1, WireType::LengthDelimited, &mut buf);
    length_prefixed(&mut buf, |buf| {
        encode_string(1, api_version, buf);
        encode_string(2, kind, buf);
    });
    encode_key(2, WireType::LengthDelimited, &mut buf);
    encode_bytes(raw, &mut buf);
    encode_string(3, "", &mut buf);
    encode_string(4, "", &mut buf);
    buf
}

/// Reads the envelope of a protobuf body, with the API server's errors for data that is
/// not one.
pub fn decode_envelope(data: &[u8]) -> Result<Unknown<'_>, DecodeError> {
    if data.is_empty() {
        return Err(DecodeError::new("empty data"));
    }
    let Some(mut rest) = data.strip_prefix(&MAGIC) else {
        return Err(DecodeError::new(format!(
            "provided data does not appear to be a protobuf message, expected prefix {}",
            go_bytes(&MAGIC)
        )));
    };
    if rest.is_empty() {
        return Err(DecodeError::new("empty body"));
    }
    let mut unknown = Unknown::default();
    let depth = Depth::LIMIT;
    while !rest.is_empty() {
        let (number, wire_type) = decode_key(&mut rest)?;
        match number {
            1 => for_each_field(wire_type, &mut rest, depth, |number, wire_type, buf, depth| match number {
                1 => merge(&mut unknown.api_version, wire_type, buf, depth),
                2 => merge(&mut unknown.kind, wire_type, buf, depth),
                _ => skip(number, wire_type, buf, depth),
            })?,
            2 => unknown.raw = super::length_delimited(wire_type, &mut rest)?,
            3 => merge(&mut unknown.content_encoding, wire_type, &mut rest, depth)?,
            4 => merge(&mut unknown.content_type, wire_type, &mut rest, depth)?,
            _ => skip(number, wire_type, &mut rest, depth)?,
        }
    }
    Ok(unknown)
}

/// Go's `%v` of a byte slice: `[107 56 115 0]`.
fn go_bytes(bytes: &[u8]) -> String {
    let items: Vec<String> = bytes.iter().map(u8::to_string).collect();
    format!("[{}]", items.join(" "))
}

/// One frame of a protobuf watch stream: the length of the event as a 4-byte big-endian
/// number, then a `WatchEvent` (`type` 1, `object` 2 holding `object` as a
/// `RawExtension`, itself an enveloped object) without an envelope of its own.
pub fn watch_frame(event_type: &str, object: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(object.len() + event_type.len() + 16);
    frame.extend_from_slice(&[0; 4]);
    encode_string(1, event_type, &mut frame);
    encode_key(2, WireType::LengthDelimited, &mut frame);
    length_prefixed(&mut frame, |buf| {
        encode_key(1, WireType::LengthDelimited, buf);
        encode_bytes(object, buf);
    });
    let event = u32::try_from(frame.len() - 4).unwrap_or(u32::MAX);
    frame[..4].copy_from_slice(&event.to_be_bytes());
    frame
}
