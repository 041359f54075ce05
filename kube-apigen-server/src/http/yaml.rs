//! YAML bodies as the API server reads them: sigs.k8s.io/yaml converts YAML to JSON with
//! go-yaml v2, whose plain scalars follow YAML 1.1 (`010` is 8, `0b11` is 3, `1_000` is
//! 1000, `yes`/`on`/`y` are true, `~` is null), and then decodes the JSON.
//!
//! Built on `saphyr-parser`'s events (the YAML grammar), with the resolution of plain
//! scalars written by hand after go-yaml v2's rules, on Go's `strconv` functions
//! ([`crate::go::strconv`]); no crate resolves scalars as go-yaml v2 does. Only the first
//! document is read, as sigs.k8s.io/yaml does; anchors, aliases and `<<` merges are
//! followed.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, StrInput};
use serde_json::{Map, Number, Value};

use super::decode::{Duplicate, Scanned, Segment, render};
use crate::go::strconv::{parse_decimal_float, parse_int0, parse_uint0};

/// The JSON value of the first YAML document, with the keys that repeat in a mapping.
/// The error is the parser's or the converter's message.
pub(crate) fn to_json(text: &str) -> Result<Scanned, String> {
    let mut builder = Builder::new(text);
    let value = builder.document()?;
    Ok(Scanned { value, duplicates: builder.duplicates })
}

/// The JSON value of every document of a YAML stream (a manifest of several objects
/// separated by `---`), empty and null documents left out, as kubectl reads a file. The
/// error is the parser's or the converter's message.
pub fn documents(text: &str) -> Result<Vec<Value>, String> {
    let mut builder = Builder::new(text);
    let mut documents = Vec::new();
    loop {
        match builder.next()?.0 {
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            Event::DocumentStart(_) => {
                let (event, span) = builder.next()?;
                if event != Event::DocumentEnd {
                    let value = builder.node(event, span)?;
                    if !value.is_null() {
                        documents.push(value);
                    }
                }
                builder.anchors.clear();
            }
            _ => return Ok(documents),
        }
    }
}

/// A scalar as go-yaml v2 resolves it, before JSON.
#[derive(Debug, PartialEq)]
enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    String(String),
}

/// go-yaml v2's resolution of a plain scalar: its table of words, then integers with
/// Go's base prefixes (underscores removed), then YAML-style floats, else a string.
fn resolve_plain(text: &str) -> Scalar {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => return Scalar::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Scalar::Bool(false);
        }
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Scalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match text.as_bytes()[0] {
        b'.' => parse_decimal_float(text).map_or_else(|| Scalar::String(text.to_owned()), Scalar::Float),
        b'+' | b'-' | b'0'..=b'9' => {
            let plain = text.replace('_', "");
            if let Some(n) = parse_int0(&plain) {
                Scalar::Int(n)
            } else if let Some(n) = parse_uint0(&plain) {
                Scalar::Uint(n)
            } else if let Some(f) = yaml_float(&plain) {
                Scalar::Float(f)
            } else if let Some(n) = plain.strip_prefix("0b").and_then(|b| u64::from_str_radix(b, 2).ok()) {
                // `0b` with digits Go's base 0 refused (`0b_1` once the `_` is gone).
                i64::try_from(n).map_or(Scalar::Uint(n), Scalar::Int)
            } else if let Some(n) =
                plain.strip_prefix("-0b").and_then(|b| i64::from_str_radix(&format!("-{b}"), 2).ok())
            {
                Scalar::Int(n)
            } else {
                Scalar::String(text.to_owned())
            }
        }
        _ => Scalar::String(text.to_owned()),
    }
}

/// go-yaml v2's float shape, `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, read
/// by Go's `ParseFloat`.
fn yaml_float(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (number, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number_ok = match number.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((whole, fraction)) => digits(whole) && (fraction.is_empty() || digits(fraction)),
        None => digits(number),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    (number_ok && exponent_ok).then(|| parse_decimal_float(text)).flatten()
}

/// A scalar in JSON, as Go's `json.Marshal` writes what go-yaml produced: a float with
/// no fraction is an integer on the wire (`1e3` is `1000`), and NaN or an infinity is
/// refused.
fn scalar_json(scalar: Scalar) -> Result<Value, String> {
    Ok(match scalar {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(n) => Value::Number(n.into()),
        Scalar::Uint(n) => Value::Number(n.into()),
        Scalar::String(s) => Value::String(s),
        Scalar::Float(f) if !f.is_finite() => {
            let shown = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            };
            return Err(format!("json: unsupported value: {shown}"));
        }
        Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 1e21 => {
            if f >= 0.0 && f <= u64::MAX as f64 && f < 18_446_744_073_709_551_616.0 {
                if f < 9_223_372_036_854_775_808.0 {
                    Value::Number((f as i64).into())
                } else {
                    Value::Number((f as u64).into())
                }
            } else if f >= -9_223_372_036_854_775_808.0 {
                Value::Number((f as i64).into())
            } else {
                Value::Number(Number::from_f64(f).expect("finite"))
            }
        }
        Scalar::Float(f) => Value::Number(Number::from_f64(f).expect("finite")),
    })
}

/// A mapping key as sigs.k8s.io/yaml writes it in JSON: scalars as text.
fn key_string(scalar: Scalar) -> Result<String, String> {
    Ok(match scalar {
        Scalar::String(s) => s,
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(n) => n.to_string(),
        Scalar::Uint(n) => n.to_string(),
        Scalar::Float(f) if f.is_nan() => ".nan".to_owned(),
        Scalar::Float(f) if f.is_infinite() => if f > 0.0 { ".inf" } else { "-.inf" }.to_owned(),
        // Go writes the key with float32 precision.
        Scalar::Float(f) => (f as f32).to_string(),
        Scalar::Null => return Err("unsupported map key of type: <nil>".to_owned()),
    })
}

/// Collections nested deeper are refused, as JSON bodies are by serde_json's limit.
const MAX_DEPTH: usize = 128;

/// Values an alias may copy in all, against documents that grow exponentially through
/// aliases of aliases.
const MAX_NODES: usize = 2_000_000;

struct Builder<'a> {
    parser: Parser<'a, StrInput<'a>>,
    anchors: HashMap<usize, Value>,
    path: Vec<Segment>,
    seq: usize,
    duplicates: Vec<Duplicate>,
    /// Open collections.
    depth: usize,
    /// Values built so far, copies of aliases included.
    nodes: usize,
}

/// The number of values in `value`, itself included.
fn size(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(size).sum::<usize>(),
        Value::Object(entries) => 1 + entries.values().map(size).sum::<usize>(),
        _ => 1,
    }
}

impl<'a> Builder<'a> {
    fn new(text: &'a str) -> Self {
        Builder {
            parser: Parser::new_from_str(text),
            anchors: HashMap::new(),
            path: Vec::new(),
            seq: 0,
            duplicates: Vec::new(),
            depth: 0,
            nodes: 0,
        }
    }

    fn next(&mut self) -> Result<(Event<'a>, Span), String> {
        match self.parser.next_event() {
            Some(Ok(event)) => Ok(event),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("unexpected end of the document".to_owned()),
        }
    }

    fn document(&mut self) -> Result<Value, String> {
        loop {
            match self.next()?.0 {
                Event::StreamStart | Event::Nothing => {}
                Event::DocumentStart(_) => break,
                // No document at all is `null`.
                _ => return Ok(Value::Null),
            }
        }
        let (event, span) = self.next()?;
        match event {
            Event::DocumentEnd => Ok(Value::Null),
            event => self.node(event, span),
        }
    }

    fn remember(&mut self, anchor: usize, value: &Value) {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
    }

    /// A scalar's go-yaml value: quoted and block scalars and `!!str` are strings, plain
    /// ones are resolved.
    fn scalar(text: &str, style: ScalarStyle, tag: Option<&saphyr_parser::Tag>) -> Scalar {
        let core = |t: &saphyr_parser::Tag| t.handle == "!!" || t.handle == "tag:yaml.org,2002:";
        let string_tag =
            tag.is_some_and(|t| (core(t) && t.suffix == "str") || (t.handle == "!" && t.suffix.is_empty()));
        if style != ScalarStyle::Plain || string_tag { Scalar::String(text.to_owned()) } else { resolve_plain(text) }
    }

    fn node(&mut self, event: Event<'a>, span: Span) -> Result<Value, String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err("document contains excessive aliasing".to_owned());
        }
        if matches!(event, Event::SequenceStart(..) | Event::MappingStart(..)) {
            if self.depth == MAX_DEPTH {
                return Err(format!("line {}: exceeded max depth of {MAX_DEPTH}", span.start.line()));
            }
            self.depth += 1;
            let value = self.collection(event);
            self.depth -= 1;
            return value;
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar_json(Self::scalar(&text, style, tag.as_deref()))?;
                self.remember(anchor, &value);
                Ok(value)
            }
            Event::Alias(anchor) => {
                let value =
                    self.anchors.get(&anchor).ok_or_else(|| format!("line {}: unknown anchor", span.start.line()))?;
                self.nodes += size(value);
                if self.nodes > MAX_NODES {
                    return Err("document contains excessive aliasing".to_owned());
                }
                Ok(value.clone())
            }
            other => Err(format!("line {}: unexpected {other:?}", span.start.line())),
        }
    }

    fn collection(&mut self, event: Event<'a>) -> Result<Value, String> {
        match event {
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    self.path.push(Segment::Index(items.len()));
                    let item = self.node(event, span);
                    self.path.pop();
                    items.push(item?);
                }
                let value = Value::Array(items);
                self.remember(anchor, &value);
                Ok(value)
            }
            Event::MappingStart(anchor, _) => {
                let value = Value::Object(self.mapping()?);
                self.remember(anchor, &value);
                Ok(value)
            }
            _ => unreachable!("only collections start here"),
        }
    }

    fn mapping(&mut self) -> Result<Map<String, Value>, String> {
        let mut map = Map::new();
        loop {
            let (event, span) = self.next()?;
            let key = match event {
                Event::MappingEnd => return Ok(map),
                Event::Scalar(ref text, ScalarStyle::Plain, _, None) if text == "<<" => {
                    let (event, span) = self.next()?;
                    let merged = self.node(event, span)?;
                    merge(&mut map, merged)?;
                    continue;
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let scalar = Self::scalar(&text, style, tag.as_deref());
                    if anchor > 0 {
                        self.anchors.insert(anchor, scalar_json(Self::scalar(&text, style, tag.as_deref()))?);
                    }
                    key_string(scalar)?
                }
                Event::Alias(anchor) => match self.anchors.get(&anchor) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    Some(Value::Bool(b)) => b.to_string(),
                    _ => return Err(format!("line {}: unsupported map key", span.start.line())),
                },
                _ => return Err(format!("line {}: unsupported map key", span.start.line())),
            };
            self.seq += 1;
            self.path.push(Segment::Key(key.clone()));
            if map.contains_key(&key) {
                self.duplicates.push(Duplicate {
                    seq: self.seq,
                    path: render(&self.path),
                    depth: self.path.len(),
                    key: key.clone(),
                    line: Some(span.start.line() as u64),
                });
            }
            let (event, span) = self.next()?;
            let value = self.node(event, span);
            self.path.pop();
            map.insert(key, value?);
        }
    }
}

/// A `<<` merge, as go-yaml v2 does it: the keys of a mapping, or of each mapping of a
/// sequence (the first one winning), set in order with the keys around them.
fn merge(map: &mut Map<String, Value>, merged: Value) -> Result<(), String> {
    match merged {
        Value::Object(entries) => map.extend(entries),
        Value::Array(items) => {
            for item in items.into_iter().rev() {
                let Value::Object(entries) = item else {
                    return Err("map merge requires map or sequence of maps as the value".to_owned());
                };
                map.extend(entries);
            }
        }
        _ => return Err("map merge requires map or sequence of maps as the value".to_owned()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        to_json(text).unwrap_or_else(|e| panic!("{text}: {e}")).value
    }

    #[test]
    fn a_stream_gives_every_document_but_empty_ones() {
        let text = "---\na: 1\n---\n# nothing\n---\nb: yes\n...\n---\n[1, 2]\n";
        assert_eq!(
            documents(text),
            Ok(vec![serde_json::json!({"a": 1}), serde_json::json!({"b": true}), serde_json::json!([1, 2])])
        );
        assert_eq!(documents("{\"kind\": \"List\"}"), Ok(vec![serde_json::json!({"kind": "List"})]), "JSON is YAML");
        assert!(documents("a: [1").is_err());
    }

    #[test]
    fn yaml_1_1_scalars() {
        assert_eq!(
            json("a: 010\nb: 0x1F\nc: 0b11\nd: 1_000\ne: 08\nf: 1e3\ng: .5\nh: 0o17\ni: -0b101\nj: +12\n"),
            serde_json::json!({"a": 8, "b": 31, "c": 3, "d": 1000, "e": 8, "f": 1000, "g": 0.5, "h": 15, "i": -5, "j": 12})
        );
        assert_eq!(
            json(
                "a: yes\nb: On\nc: n\nd: ~\ne: \"010\"\nf: '0x1F'\ng: !!str 010\nh: 2024-01-02\ni: 1.5.5\nj: |\n  010\n"
            ),
            serde_json::json!({"a": true, "b": true, "c": false, "d": null, "e": "010", "f": "0x1F", "g": "010",
                "h": "2024-01-02", "i": "1.5.5", "j": "010\n"})
        );
        // Keys are resolved too: the YAML 1.1 booleans include `y` and `n`.
        assert_eq!(json("yes: 1\ny: 2\nN: 3\n1: 4\n"), serde_json::json!({"true": 2, "false": 3, "1": 4}));
        assert_eq!(to_json("a: .inf\n").unwrap_err(), "json: unsupported value: +Inf");
    }

    #[test]
    fn anchors_merges_and_duplicates() {
        // As go-yaml v2's strict mode, a key set by a merge counts when repeated.
        let scanned = to_json("base: &b {a: 1, b: 2}\nthing:\n  <<: *b\n  b: 3\n  b: 4\nlist: [*b]\n").unwrap();
        assert_eq!(
            scanned.value,
            serde_json::json!({"base": {"a": 1, "b": 2}, "thing": {"a": 1, "b": 4}, "list": [{"a": 1, "b": 2}]})
        );
        let duplicates: Vec<_> = scanned.duplicates.iter().map(|d| (d.path.as_str(), d.line)).collect();
        assert_eq!(duplicates, [("thing.b", Some(4)), ("thing.b", Some(5))]);
        assert_eq!(json(""), Value::Null);
        assert!(to_json(&"[".repeat(200)).unwrap_err().contains("exceeded max depth of 128"));
        let laughs = "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
        assert_eq!(to_json(laughs).unwrap_err(), "document contains excessive aliasing");
        assert_eq!(json("a: 1\n---\nb: 2\n"), serde_json::json!({"a": 1}));
    }
}
