//! The protobuf runtime: the envelope and watch frames byte for byte, the runtime types'
//! messages, and the decoder's answers to bad input.

use std::collections::BTreeMap;

use kube_apigen_core::protobuf::{self, Depth, WireType};
use kube_apigen_core::{IntOrString, Quantity, Status, Time};

/// A message with one field of each shape, written as a generated model would be.
#[derive(Debug, Default, PartialEq)]
struct Sample {
    name: Option<String>,
    count: i32,
    tags: Vec<i64>,
    labels: BTreeMap<String, String>,
    verbs: Vec<String>,
    raw: serde_json::Value,
    created: Option<Time>,
    port: Option<IntOrString>,
}

impl protobuf::Message for Sample {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        protobuf::encode_optional(1, self.name.as_ref(), buf);
        protobuf::encode(2, &self.count, buf);
        protobuf::encode_repeated(3, &self.tags, buf);
        protobuf::encode_map(4, &self.labels, buf);
        protobuf::encode(5, &self.verbs, buf);
        protobuf::encode(6, &self.raw, buf);
        protobuf::encode_optional(7, self.created.as_ref(), buf);
        protobuf::encode_optional(8, self.port.as_ref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), protobuf::DecodeError> {
        match number {
            1 => protobuf::merge(self.name.get_or_insert_default(), wire_type, buf, depth),
            2 => protobuf::merge(&mut self.count, wire_type, buf, depth),
            3 => protobuf::merge_repeated(&mut self.tags, wire_type, buf, depth),
            4 => protobuf::merge_map(&mut self.labels, wire_type, buf, depth),
            5 => protobuf::merge(&mut self.verbs, wire_type, buf, depth),
            6 => protobuf::merge(&mut self.raw, wire_type, buf, depth),
            7 => protobuf::merge(self.created.get_or_insert_default(), wire_type, buf, depth),
            8 => protobuf::merge(self.port.get_or_insert_default(), wire_type, buf, depth),
            _ => protobuf::skip(number, wire_type, buf, depth),
        }
    }
}

fn sample() -> Sample {
    Sample {
        name: Some(String::new()),
        count: -1,
        tags: vec![1, 300],
        labels: BTreeMap::from([("app".into(), "web".into()), ("empty".into(), String::new())]),
        verbs: vec!["get".into(), "list".into()],
        raw: serde_json::json!({"f:spec": {}}),
        created: Some("2024-01-02T03:04:05.5Z".parse::<jiff::Timestamp>().unwrap().into()),
        port: Some(IntOrString::String("http".into())),
    }
}

#[test]
fn every_shape_round_trips() {
    let value = sample();
    let bytes = protobuf::encode_message(&value);
    assert_eq!(protobuf::decode_message::<Sample>(&bytes).unwrap(), value);
    // A present empty string stays present; an absent field stays absent.
    let decoded: Sample = protobuf::decode_message(&protobuf::encode_message(&Sample::default())).unwrap();
    assert_eq!(decoded, Sample::default());
}

#[test]
fn the_wire_is_what_go_writes() {
    let value = Sample { count: -1, created: Some(Time::default()), ..Sample::default() };
    let bytes = protobuf::encode_message(&value);
    // count: a negative int32 takes ten bytes; raw: an empty message for `null`; the zero
    // time: an empty message; verbs: an empty list message.
    assert_eq!(
        bytes,
        [
            [0x10].as_slice(),
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            &[0x2a, 0x00],
            &[0x32, 0x00],
            &[0x3a, 0x00],
        ]
        .concat()
    );
    let port = Sample { port: Some(IntOrString::Int(8080)), ..Sample::default() };
    let bytes = protobuf::encode_message(&port);
    // type 0, intVal 8080, strVal "" (Go writes all three).
    assert!(bytes.ends_with(&[0x42, 0x07, 0x08, 0x00, 0x10, 0x90, 0x3f, 0x1a, 0x00]), "{bytes:02x?}");
}

#[test]
fn long_values_get_longer_length_prefixes() {
    // A message of 200 and of 20,000 bytes: two- and three-byte lengths, written in place.
    for len in [200, 20_000] {
        let value = Sample { labels: BTreeMap::from([("k".into(), "v".repeat(len))]), ..Sample::default() };
        let bytes = protobuf::encode_message(&value);
        assert_eq!(protobuf::decode_message::<Sample>(&bytes).unwrap(), value, "{len}");
    }
    let tree = Tree { child: Some(Box::new(Tree { child: Some(Box::new(Tree::default())) })) };
    assert_eq!(protobuf::encode_message(&tree), [0x0a, 0x02, 0x0a, 0x00]);
}

#[test]
fn packed_numbers_and_fields_in_any_order_decode() {
    // tags packed: field 3, length 3, [1, 300]; then count after it.
    let bytes = [0x1a, 0x03, 0x01, 0xac, 0x02, 0x10, 0x05];
    let decoded: Sample = protobuf::decode_message(&bytes).unwrap();
    assert_eq!((decoded.tags, decoded.count), (vec![1, 300], 5));
    // strVal before type still gives the string form.
    let bytes = [0x42, 0x07, 0x1a, 0x01, b'x', 0x08, 0x01, 0x10, 0x00];
    let decoded: Sample = protobuf::decode_message(&bytes).unwrap();
    assert_eq!(decoded.port, Some(IntOrString::String("x".into())));
}

#[test]
fn unknown_fields_are_skipped() {
    let mut bytes = vec![0x98, 0x06, 0x07, 0xa2, 0x06, 0x02, 0x08, 0x01];
    bytes.extend(protobuf::encode_message(&Sample { count: 3, ..Sample::default() }));
    let decoded: Sample = protobuf::decode_message(&bytes).unwrap();
    assert_eq!(decoded.count, 3);
}

#[test]
fn bad_input_is_an_error() {
    let cases: &[(&[u8], &str)] = &[
        (&[0x10], "proto: invalid varint"),
        (&[0x0a, 0x05, b'a'], "unexpected EOF"),
        (&[0x0a, 0x01, 0xff], "proto: string field is not valid UTF-8"),
        (&[0x10, 0x00, 0x12, 0x00], "proto: wrong wireType = 2 for field"),
        (&[0x42, 0x02, 0x08, 0x07], "IntOrString type 7 is neither 0 (int) nor 1 (string)"),
        (
            &[0x32, 0x03, 0x0a, 0x01, b'{'],
            "raw bytes of an embedded object are not JSON: EOF while parsing an object at line 1 column 1",
        ),
        (
            &[0x3a, 0x0a, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
            "timestamp out of range: 9223372036854775807 seconds, 0 nanoseconds",
        ),
    ];
    for (bytes, message) in cases {
        let error = protobuf::decode_message::<Sample>(bytes).expect_err("bad input");
        assert_eq!(error.to_string(), *message, "{bytes:02x?}");
    }
}

/// A message holding itself.
#[derive(Debug, Default)]
struct Tree {
    child: Option<Box<Tree>>,
}

impl protobuf::Message for Tree {
    fn encode_fields(&self, buf: &mut Vec<u8>) {
        protobuf::encode_optional(1, self.child.as_deref(), buf);
    }

    fn merge_field(
        &mut self,
        number: u32,
        wire_type: WireType,
        buf: &mut &[u8],
        depth: Depth,
    ) -> Result<(), protobuf::DecodeError> {
        match number {
            1 => protobuf::merge(&mut **self.child.get_or_insert_default(), wire_type, buf, depth),
            _ => protobuf::skip(number, wire_type, buf, depth),
        }
    }
}

#[test]
fn nesting_deeper_than_the_limit_is_an_error_not_a_stack_overflow() {
    let mut tree = Tree::default();
    for _ in 0..100 {
        tree = Tree { child: Some(Box::new(tree)) };
    }
    let bytes = protobuf::encode_message(&tree);
    assert!(protobuf::decode_message::<Tree>(&bytes).is_ok(), "100 levels decode");
    let deeper = protobuf::encode_message(&Tree { child: Some(Box::new(tree)) });
    let error = protobuf::decode_message::<Tree>(&deeper).expect_err("101 levels");
    assert_eq!(error.to_string(), "proto: messages nested too deeply");
    // Far deeper input is an error too, without recursing through all of it.
    let mut bytes: Vec<u8> = Vec::new();
    for _ in 0..10_000 {
        bytes = [&[0x0a][..], &length(bytes.len()), &bytes].concat();
    }
    assert!(protobuf::decode_message::<Tree>(&bytes).is_err());
}

fn length(mut len: usize) -> Vec<u8> {
    let mut out = Vec::new();
    while len >= 0x80 {
        out.push((len as u8) | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out
}

#[test]
fn the_envelope_is_kubernetes_one() {
    let bytes = protobuf::encode_envelope("v1", "Status", &[0x1a, 0x01, b'x']);
    assert_eq!(
        bytes,
        b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status\x12\x03\x1a\x01x\x1a\x00\x22\x00".to_vec(),
        "typeMeta, raw, and empty contentEncoding and contentType"
    );
    let envelope = protobuf::decode_envelope(&bytes).unwrap();
    assert_eq!(
        (envelope.api_version.as_str(), envelope.kind.as_str(), envelope.raw),
        ("v1", "Status", &[0x1a, 0x01, b'x'][..])
    );
    for (data, message) in [
        (&b""[..], "empty data"),
        (
            b"{\"kind\":\"Status\"}",
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        ),
        (b"k8s\0", "empty body"),
    ] {
        assert_eq!(protobuf::decode_envelope(data).unwrap_err().to_string(), message);
    }
}

#[test]
fn watch_frames_are_length_prefixed_watch_events() {
    let object = protobuf::encode_envelope("v1", "Status", &[]);
    let frame = protobuf::watch_frame("ADDED", &object);
    let (length, event) = frame.split_at(4);
    assert_eq!(u32::from_be_bytes(length.try_into().unwrap()) as usize, event.len());
    // type = 1 "ADDED"; object = 2 { raw = 1 <the enveloped object> }.
    let mut expected = b"\x0a\x05ADDED\x12".to_vec();
    expected.push((object.len() + 2) as u8);
    expected.push(0x0a);
    expected.push(object.len() as u8);
    expected.extend(&object);
    assert_eq!(event, expected);
}

#[test]
fn status_and_quantity_round_trip() {
    let status = Status::not_found("autoscaling", "horizontalpodautoscalers", "web");
    let bytes = protobuf::encode_message(&status);
    assert_eq!(protobuf::decode_message::<Status>(&bytes).unwrap(), status);
    let quantity = Quantity::from("1500m");
    assert_eq!(protobuf::decode_message::<Quantity>(&protobuf::encode_message(&quantity)).unwrap(), quantity);
    let error = protobuf::decode_message::<Quantity>(&[0x0a, 0x02, b'x', b'y']).unwrap_err();
    assert!(error.to_string().starts_with("quantity \"xy\": "), "{error}");
}
