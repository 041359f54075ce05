//! Helpers shared by the wire-fidelity tests: fixture loading, decoding and encoding the way
//! a client does (from and to JSON text), and a JSON comparison that names every differing
//! path instead of dumping two large documents.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Path of a file under `tests/fixtures/`.
pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

/// The raw bytes of a fixture file.
pub fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The text of a fixture file.
pub fn fixture_text(name: &str) -> String {
    String::from_utf8(fixture_bytes(name)).unwrap_or_else(|e| panic!("{name} is not UTF-8: {e}"))
}

/// A fixture parsed as an untyped JSON value: the reference every round trip is compared to.
pub fn fixture(name: &str) -> Value {
    let text = fixture_text(name);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} is not valid JSON: {e}"))
}

/// Decodes JSON text into `T`, as a client decodes a response body.
pub fn decode<T: DeserializeOwned>(context: &str, text: &str) -> T {
    serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{context}: decoding into {} failed: {e}", std::any::type_name::<T>()))
}

/// Decodes a JSON value by way of its text, so that the same deserializer paths run as for a
/// response body (`serde_json::from_value` takes different ones for numbers and strings).
pub fn decode_value<T: DeserializeOwned>(context: &str, value: &Value) -> T {
    decode(context, &value.to_string())
}

/// Decoding `value` into `T` fails; returns the error message.
pub fn decode_err<T: DeserializeOwned + std::fmt::Debug>(context: &str, value: &Value) -> String {
    match serde_json::from_str::<T>(&value.to_string()) {
        Ok(decoded) => panic!("{context}: expected a decoding error, got {decoded:?}"),
        Err(e) => e.to_string(),
    }
}

/// Encodes `value` to JSON text and parses that text back, as the receiving side would.
pub fn encode<T: Serialize>(context: &str, value: &T) -> Value {
    let text = serde_json::to_string(value)
        .unwrap_or_else(|e| panic!("{context}: encoding {} failed: {e}", std::any::type_name::<T>()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{context}: encoder wrote invalid JSON: {e}"))
}

/// Decodes `input` into `T` and encodes it again: returns the typed value and the output.
pub fn round_trip<T: DeserializeOwned + Serialize>(context: &str, input: &Value) -> (T, Value) {
    let typed: T = decode_value(context, input);
    let output = encode(context, &typed);
    (typed, output)
}

/// Every difference between two JSON values, one line per path (`/spec/metrics/0/type`).
/// Object key order is irrelevant, as it is in `Value` equality; numbers compare as
/// `serde_json` compares them (`1` and `1.0` differ).
pub fn json_diff(expected: &Value, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("", expected, actual, &mut out);
    out
}

fn walk(path: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                let p = format!("{path}/{key}");
                match a.get(key) {
                    Some(av) => walk(&p, ev, av, out),
                    None => out.push(format!("{p}: missing (expected {ev})")),
                }
            }
            for (key, av) in a {
                if !e.contains_key(key) {
                    out.push(format!("{path}/{key}: unexpected {av}"));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.push(format!("{path}: {} items expected, {} found", e.len(), a.len()));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                walk(&format!("{path}/{i}"), ev, av, out);
            }
        }
        _ if expected == actual => {}
        _ => out.push(format!("{path}: expected {expected}, found {actual}")),
    }
}

/// Asserts that two JSON values are equal, listing every differing path if they are not.
#[track_caller]
pub fn assert_json_eq(context: &str, expected: &Value, actual: &Value) {
    let diff = json_diff(expected, actual);
    assert!(
        diff.is_empty() && expected == actual,
        "{context}: JSON differs at {} path(s):\n  {}",
        diff.len(),
        diff.join("\n  ")
    );
}

/// Replaces the value at a JSON pointer (`/spec/metrics/0/type`), which must exist.
pub fn replace(doc: &mut Value, pointer: &str, value: Value) {
    let slot = doc.pointer_mut(pointer).unwrap_or_else(|| panic!("no value at {pointer}"));
    *slot = value;
}

/// Puts `value` where a JSON pointer points, in a parent that must exist: an object member
/// is added or replaced; an array item is replaced, or appended when the index is the
/// array's length.
pub fn put(doc: &mut Value, pointer: &str, value: Value) {
    let (parent, last) = pointer.rsplit_once('/').expect("pointer has a parent");
    match doc.pointer_mut(parent).unwrap_or_else(|| panic!("no parent at {pointer}")) {
        Value::Object(map) => {
            map.insert(last.to_owned(), value);
        }
        Value::Array(items) => match last.parse::<usize>().expect("array index") {
            index if index == items.len() => items.push(value),
            index => items[index] = value,
        },
        other => panic!("cannot put {pointer} inside {other}"),
    }
}

/// Removes the member at a JSON pointer, which must exist; returns its value.
pub fn remove(doc: &mut Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    let object =
        doc.pointer_mut(parent).and_then(Value::as_object_mut).unwrap_or_else(|| panic!("no object at {parent}"));
    object.remove(key).unwrap_or_else(|| panic!("no member {key} at {parent}"))
}

/// Parses an RFC 3339 timestamp as `kube_apigen::Time`.
pub fn time(text: &str) -> kube_apigen::Time {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}
