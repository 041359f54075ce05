//! The messages of the runtime's types, written by hand because the types are: the
//! timestamps, `Quantity`, `IntOrString`, and `Status` with its parts.
//!
//! [`MESSAGE_LAYOUTS`] states the fields each codec writes, so that the generator can
//! check a spec's `.proto` files against them.

use jiff::Timestamp;

use super::{
    DecodeError, Depth, Message, Value, WireType, encode, encode_optional, encode_repeated, encode_string,
    for_each_field, length_prefixed, merge, merge_repeated, skip,
};
use crate::{IntOrString, ListMeta, MicroTime, Quantity, Status, StatusCause, StatusDetails, Time};

/// A message a runtime type is encoded as: its full protobuf name and its fields (name,
/// number, protobuf type).
#[derive(Debug)]
pub struct MessageLayout {
    /// The message's full name, e.g. `k8s.io.apimachinery.pkg.apis.meta.v1.Time`.
    pub name: &'static str,
    /// Each field's name, number and type (a scalar type or a message's full name).
    pub fields: &'static [(&'static str, u32, &'static str)],
}

/// The messages of the runtime's types, as the codecs here write them.
pub const MESSAGE_LAYOUTS: &[MessageLayout] = &[
    MessageLayout { name: "k8s.io.apimachinery.pkg.apis.meta.v1.Time", fields: TIMESTAMP },
    MessageLayout { name: "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", fields: TIMESTAMP },
    MessageLayout { name: "k8s.io.apimachinery.pkg.api.resource.Quantity", fields: &[("string", 1, "string")] },
    MessageLayout {
        name: "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
        fields: &[("type", 1, "int64"), ("intVal", 2, "int32"), ("strVal", 3, "string")],
    },
    MessageLayout {
        name: "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta",
        fields: &[
            ("selfLink", 1, "string"),
            ("resourceVersion", 2, "string"),
            ("continue", 3, "string"),
            ("remainingItemCount", 4, "int64"),
        ],
    },
    MessageLayout {
        name: "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
        fields: &[
            ("metadata", 1, "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta"),
            ("status", 2, "string"),
            ("message", 3, "string"),
            ("reason", 4, "string"),
            ("details", 5, "k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails"),
            ("code", 6, "int32"),
        ],
    },
    MessageLayout {
        name: "k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails",
        fields: &[
            ("name", 1, "string"),
            ("group", 2, "string"),
            ("kind", 3, "string"),
            ("causes", 4, "k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause"),
            ("retryAfterSeconds", 5, "int32"),
            ("uid", 6, "string"),
        ],
    },
    MessageLayout {
        name: "k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause",
        fields: &[("reason", 1, "string"), ("message", 2, "string"), ("field", 3, "string")],
    },
];

const TIMESTAMP: &[(&str, u32, &str)] = &[("seconds", 1, "int64"), ("nanos", 2, "int32")];

/// `seconds` and `nanos` of a timestamp; Go's zero time is the empty message.
fn timestamp_fields(ts: Timestamp, is_zero: bool) -> Option<(i64, i32)> {
    (!is_zero).then(|| (ts.as_second(), ts.subsec_nanosecond()))
}

fn encode_timestamp(fields: Option<(i64, i32)>, buf: &mut Vec<u8>) {
    length_prefixed(buf, |buf| {
        if let Some((seconds, nanos)) = fields {
            encode(1, &seconds, buf);
            encode(2, &nanos, buf);
        }
    });
}

/// A timestamp message: the empty message is Go's zero time (`None`), anything else
/// counts from the Unix epoch; out-of-range values are an error.
fn read_timestamp(wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<Option<Timestamp>, DecodeError> {
    let (mut seconds, mut nanos, mut empty) = (0i64, 0i32, true);
    for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| {
        empty = false;
        match number {
            1 => merge(&mut seconds, wire_type, buf, depth),
            2 => merge(&mut nanos, wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        }
    })?;
    if empty {
        return Ok(None);
    }
    Timestamp::new(seconds, nanos)
        .map(Some)
        .map_err(|_| DecodeError::new(format!("timestamp out of range: {seconds} seconds, {nanos} nanoseconds")))
}

impl Value for Time {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        encode_timestamp(timestamp_fields(self.0, self.is_zero()), buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        *self = read_timestamp(wire_type, buf, depth)?.map(Time).unwrap_or_default();
        Ok(())
    }
}

impl Value for MicroTime {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        encode_timestamp(timestamp_fields(self.0, *self == MicroTime::default()), buf);
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        *self = read_timestamp(wire_type, buf, depth)?.map(MicroTime).unwrap_or_default();
        Ok(())
    }
}

impl Message for Quantity {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        encode(1, &self.0, buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError> {
        match number {
            1 => {
                merge(&mut self.0, wire_type, buf, depth)?;
                self.validate().map_err(|e| DecodeError::new(format!("quantity {:?}: {e}", self.0)))?;
                self.canonicalize();
                Ok(())
            }
            _ => skip(number, wire_type, buf, depth),
        }
    }
}

/// `IntOrString`: `type` 0 with `intVal`, or 1 with `strVal`; Go writes all three.
impl Value for IntOrString {
    const WIRE_TYPE: WireType = WireType::LengthDelimited;

    fn encode_value(&self, buf: &mut Vec<u8>) {
        let (kind, int, string) = int_or_string_fields(self);
        length_prefixed(buf, |buf| {
            encode(1, &kind, buf);
            encode(2, &int, buf);
            encode_string(3, string, buf);
        });
    }

    fn merge_value(&mut self, wire_type: WireType, buf: &mut &[u8], depth: Depth) -> Result<(), DecodeError> {
        let (mut kind, mut int, mut string) = (0i64, 0i32, String::new());
        for_each_field(wire_type, buf, depth, |number, wire_type, buf, depth| match number {
            1 => merge(&mut kind, wire_type, buf, depth),
            2 => merge(&mut int, wire_type, buf, depth),
            3 => merge(&mut string, wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        })?;
        *self = match kind {
            0 => IntOrString::Int(int),
            1 => IntOrString::String(string),
            other => {
                return Err(DecodeError::new(format!("IntOrString type {other} is neither 0 (int) nor 1 (string)")));
            }
        };
        Ok(())
    }
}

fn int_or_string_fields(value: &IntOrString) -> (i64, i32, &str) {
    match value {
        IntOrString::Int(int) => (0, *int, ""),
        IntOrString::String(string) => (1, 0, string),
    }
}

impl Message for ListMeta {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        encode_optional(1, self.self_link.as_ref(), buf);
        encode_optional(2, self.resource_version.as_ref(), buf);
        encode_optional(3, self.continue_.as_ref(), buf);
        encode_optional(4, self.remaining_item_count.as_ref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError> {
        match number {
            1 => merge(self.self_link.get_or_insert_default(), wire_type, buf, depth),
            2 => merge(self.resource_version.get_or_insert_default(), wire_type, buf, depth),
            3 => merge(self.continue_.get_or_insert_default(), wire_type, buf, depth),
            4 => merge(self.remaining_item_count.get_or_insert_default(), wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        }
    }
}

impl Message for Status {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        encode(1, &self.metadata, buf);
        encode_optional(2, self.status.as_ref(), buf);
        encode_optional(3, self.message.as_ref(), buf);
        encode_optional(4, self.reason.as_ref(), buf);
        encode_optional(5, self.details.as_ref(), buf);
        encode_optional(6, self.code.as_ref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError> {
        match number {
            1 => merge(&mut self.metadata, wire_type, buf, depth),
            2 => merge(self.status.get_or_insert_default(), wire_type, buf, depth),
            3 => merge(self.message.get_or_insert_default(), wire_type, buf, depth),
            4 => merge(self.reason.get_or_insert_default(), wire_type, buf, depth),
            5 => merge(self.details.get_or_insert_default(), wire_type, buf, depth),
            6 => merge(self.code.get_or_insert_default(), wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        }
    }
}

impl Message for StatusDetails {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        encode_optional(1, self.name.as_ref(), buf);
        encode_optional(2, self.group.as_ref(), buf);
        encode_optional(3, self.kind.as_ref(), buf);
        encode_repeated(4, &self.causes, buf);
        encode_optional(5, self.retry_after_seconds.as_ref(), buf);
        encode_optional(6, self.uid.as_ref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError> {
        match number {
            1 => merge(self.name.get_or_insert_default(), wire_type, buf, depth),
            2 => merge(self.group.get_or_insert_default(), wire_type, buf, depth),
            3 => merge(self.kind.get_or_insert_default(), wire_type, buf, depth),
            4 => merge_repeated(&mut self.causes, wire_type, buf, depth),
            5 => merge(self.retry_after_seconds.get_or_insert_default(), wire_type, buf, depth),
            6 => merge(self.uid.get_or_insert_default(), wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        }
    }
}

impl Message for StatusCause {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        encode_optional(1, self.reason.as_ref(), buf);
        encode_optional(2, self.message.as_ref(), buf);
        encode_optional(3, self.field.as_ref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), DecodeError> {
        match number {
            1 => merge(self.reason.get_or_insert_default(), wire_type, buf, depth),
            2 => merge(self.message.get_or_insert_default(), wire_type, buf, depth),
            3 => merge(self.field.get_or_insert_default(), wire_type, buf, depth),
            _ => skip(number, wire_type, buf, depth),
        }
    }
}

impl super::Payload for Status {
    const GO_TYPE: &'static str = "Status";
    const PROTOBUF: Option<super::Codec<Self>> = Some(super::Codec::message("v1", "Status"));
}
