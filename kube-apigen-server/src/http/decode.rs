//! Request bodies, decoded the way the API server decodes them.
//!
//! A body is read twice. The first pass builds a `serde_json::Value` while noting the
//! keys that repeat in an object (Go's decoder keeps the last value of a repeated key,
//! and so does this pass) and whether the body is well-formed at all. The second pass
//! decodes the target type with `serde_ignored` collecting the paths of the fields the
//! type does not have. When nothing repeats, a JSON body's second pass reads the text
//! again, so type errors carry the decoder's line and column; otherwise it reads the
//! value of the first pass. Unknown and duplicate fields are then what
//! `fieldValidation` is about ([`StrictError`]).

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use kube_apigen_core::go::fmt::quote as go_quote;

/// The format of a request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyFormat {
    Json,
    Yaml,
}

/// One problem `fieldValidation` governs: an unknown or duplicate field.
///
/// `error` is its text in a `strict decoding error: ...` message; `warnings` are the
/// `Warning` headers it becomes under `Warn` (one, the same text, except for YAML
/// duplicates, which the API server reports as one error of several lines and as one
/// warning per line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StrictError {
    pub(crate) error: String,
    pub(crate) warnings: Vec<String>,
}

impl StrictError {
    fn single(text: String) -> Self {
        StrictError { warnings: vec![text.clone()], error: text }
    }

    pub(crate) fn unknown(path: &str) -> Self {
        Self::single(format!("unknown field {}", go_quote(path)))
    }

    pub(crate) fn duplicate(path: &str) -> Self {
        Self::single(format!("duplicate field {}", go_quote(path)))
    }

    pub(crate) fn json_patch_unknown(path: &str) -> Self {
        Self::single(format!("json patch unknown field {}", go_quote(path)))
    }

    pub(crate) fn json_patch_duplicate(path: &str) -> Self {
        Self::single(format!("json patch duplicate field {}", go_quote(path)))
    }
}

/// `strict decoding error: a, b, c`, as apimachinery's `NewStrictDecodingError` renders it.
pub(crate) fn strict_message(errors: &[StrictError]) -> String {
    let mut message = String::from("strict decoding error: ");
    for (i, error) in errors.iter().enumerate() {
        if i > 0 {
            message.push_str(", ");
        }
        message.push_str(&error.error);
    }
    message
}

/// A repeated key, found by the first pass.
#[derive(Clone, Debug)]
pub(crate) struct Duplicate {
    /// Position among all keys of the document, in document order.
    pub(crate) seq: usize,
    /// Rendered path, `spec.template.spec.containers[0].imagePullPolicy`.
    pub(crate) path: String,
    /// Number of path segments.
    pub(crate) depth: usize,
    /// The key as written.
    pub(crate) key: String,
    /// 1-based line of the repeated key (YAML only).
    pub(crate) line: Option<u64>,
}

#[derive(Clone, Debug)]
pub(super) enum Segment {
    Key(String),
    Index(usize),
}

pub(super) fn render(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// A `serde_ignored` path in the same form: `spec.ports[0].foo`.
pub(crate) fn render_ignored(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    fn go(path: &Path<'_>, out: &mut String) {
        match path {
            Path::Root => {}
            Path::Seq { parent, index } => {
                go(parent, out);
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
            Path::Map { parent, key } => {
                go(parent, out);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Path::Some { parent } | Path::NewtypeStruct { parent } | Path::NewtypeVariant { parent } => go(parent, out),
        }
    }
    let mut out = String::new();
    go(path, &mut out);
    out
}

#[derive(Default)]
struct ScanState {
    path: Vec<Segment>,
    seq: usize,
    duplicates: Vec<Duplicate>,
    /// When set, the first position of every key path.
    order: Option<HashMap<String, usize>>,
}

/// The first pass of a JSON body: a value, last repeated key winning, with the repeats
/// noted.
struct ValueSeed<'s> {
    state: &'s mut ScanState,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let state = self.state;
        let mut items = Vec::new();
        loop {
            state.path.push(Segment::Index(items.len()));
            let item = seq.next_element_seed(ValueSeed { state: &mut *state });
            state.path.pop();
            match item? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let state = self.state;
        let mut map = Map::new();
        loop {
            let Some(key) = access.next_key::<String>()? else {
                break;
            };
            state.seq += 1;
            let seq = state.seq;
            state.path.push(Segment::Key(key.clone()));
            if map.contains_key(&key) {
                state.duplicates.push(Duplicate {
                    seq,
                    path: render(&state.path),
                    depth: state.path.len(),
                    key: key.clone(),
                    line: None,
                });
            }
            if let Some(order) = &mut state.order {
                order.entry(render(&state.path)).or_insert(seq);
            }
            let value = access.next_value_seed(ValueSeed { state: &mut *state });
            state.path.pop();
            map.insert(key, value?);
        }
        Ok(Value::Object(map))
    }
}

/// A body's first pass.
#[derive(Debug)]
pub(crate) struct Scanned {
    pub(crate) value: Value,
    pub(crate) duplicates: Vec<Duplicate>,
}

fn scan_json(body: &[u8], order: bool) -> Result<(Scanned, Option<HashMap<String, usize>>), serde_json::Error> {
    let mut state = ScanState { order: order.then(HashMap::new), ..ScanState::default() };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = ValueSeed { state: &mut state }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok((Scanned { value, duplicates: state.duplicates }, state.order))
}

fn scan_yaml(body: &[u8]) -> Result<Scanned, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("invalid UTF-8: {e}"))?;
    super::yaml::to_json(text)
}

/// Parses a JSON or YAML document into a value, noting repeated keys. The error is the
/// decoder's message.
pub(crate) fn scan(body: &[u8], format: BodyFormat) -> Result<Scanned, String> {
    match format {
        BodyFormat::Json => scan_json(body, false).map(|(scanned, _)| scanned).map_err(|e| e.to_string()),
        BodyFormat::Yaml => scan_yaml(body),
    }
}

/// The YAML duplicate-key errors as the API server's YAML decoder reports them: one
/// error, `yaml: unmarshal errors:` and a line per key, and one warning per key.
pub(crate) fn yaml_duplicates(duplicates: &[Duplicate]) -> Option<StrictError> {
    if duplicates.is_empty() {
        return None;
    }
    let warnings: Vec<String> = duplicates
        .iter()
        .map(|d| format!("line {}: key {} already set in map", d.line.unwrap_or(0), go_quote(&d.key)))
        .collect();
    let mut error = String::from("yaml: unmarshal errors:");
    for warning in &warnings {
        error.push_str("\n  ");
        error.push_str(warning);
    }
    Some(StrictError { error, warnings })
}

/// Decodes `T` from a value, collecting the paths of unknown fields.
pub(crate) fn from_value<T: DeserializeOwned>(value: Value) -> Result<(T, Vec<String>), serde_json::Error> {
    let mut unknown = Vec::new();
    let decoded = serde_ignored::deserialize(value, |path| unknown.push(render_ignored(&path)))?;
    Ok((decoded, unknown))
}

/// Decodes `T` from JSON text, collecting the paths of unknown fields.
fn from_json_text<T: DeserializeOwned>(body: &[u8]) -> Result<(T, Vec<String>), serde_json::Error> {
    let mut unknown = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let decoded = serde_ignored::deserialize(&mut deserializer, |path| unknown.push(render_ignored(&path)))?;
    deserializer.end()?;
    Ok((decoded, unknown))
}

/// What went wrong decoding a body.
#[derive(Debug)]
pub(crate) enum DecodeError {
    /// Not JSON/YAML at all: `the object provided is unrecognized (must be of type T): ...`.
    Unrecognized(String),
    /// Well-formed, but not a `T`: `Kind in version "v" cannot be handled as a T: ...`.
    CannotHandle(String),
}

/// The result of decoding a body.
pub(crate) struct Decoded<T> {
    pub(crate) value: T,
    /// Unknown and duplicate fields, in the order the API server reports them.
    pub(crate) strict: Vec<StrictError>,
    /// `kind` and the version of `apiVersion` found in the body, if any.
    pub(crate) kind: Option<String>,
    pub(crate) version: Option<String>,
}

fn kind_and_version(value: &Value) -> (Option<String>, Option<String>) {
    let kind = value.get("kind").and_then(Value::as_str).filter(|k| !k.is_empty()).map(str::to_owned);
    let version = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
        .map(|v| v.rsplit_once('/').map_or(v, |(_, version)| version).to_owned());
    (kind, version)
}

/// Decodes a whole body. `T`'s name and the resource's version stand in for a `kind`
/// and `apiVersion` the body leaves out, as the API server's defaults do.
pub(crate) fn decode<T: DeserializeOwned>(
    body: &[u8],
    format: BodyFormat,
    target: &str,
    default_version: &str,
) -> Result<Decoded<T>, DecodeError> {
    let scanned = match format {
        BodyFormat::Json => scan_json(body, false)
            .map(|(scanned, _)| scanned)
            .map_err(|e| format!("couldn't get version/kind; json parse error: {e}")),
        BodyFormat::Yaml => scan_yaml(body).map_err(|e| format!("error converting YAML to JSON: yaml: {e}")),
    };
    let scanned = scanned.map_err(|detail| {
        DecodeError::Unrecognized(format!(
            "the object provided is unrecognized (must be of type {target}): {detail} ({})",
            summarize(body)
        ))
    })?;
    let (kind, version) = kind_and_version(&scanned.value);
    let cannot_handle = |detail: &dyn fmt::Display| {
        DecodeError::CannotHandle(format!(
            "{} in version {} cannot be handled as a {target}: {detail}",
            kind.as_deref().unwrap_or(target),
            go_quote(version.as_deref().unwrap_or(default_version)),
        ))
    };

    let mut strict = Vec::new();
    let value = match format {
        BodyFormat::Json if scanned.duplicates.is_empty() => {
            let (value, unknown) = from_json_text::<T>(body).map_err(|e| cannot_handle(&e))?;
            strict.extend(unknown.iter().map(|path| StrictError::unknown(path)));
            value
        }
        BodyFormat::Json => {
            let duplicates = scanned.duplicates;
            let (value, unknown) = from_value::<T>(scanned.value).map_err(|e| cannot_handle(&e))?;
            strict = json_strict_errors(body, &duplicates, &unknown);
            value
        }
        BodyFormat::Yaml => {
            let (value, unknown) = from_value::<T>(scanned.value).map_err(|e| cannot_handle(&e))?;
            strict.extend(yaml_duplicates(&scanned.duplicates));
            strict.extend(unknown.iter().map(|path| StrictError::unknown(path)));
            value
        }
    };
    Ok(Decoded { value, strict, kind, version })
}

/// Duplicate and unknown fields of a JSON body in document order, each reported once;
/// a field both unknown and repeated is reported as unknown only (as Go's decoder does).
fn json_strict_errors(body: &[u8], duplicates: &[Duplicate], unknown: &[String]) -> Vec<StrictError> {
    let order = if unknown.is_empty() {
        HashMap::new()
    } else {
        scan_json(body, true).ok().and_then(|(_, order)| order).unwrap_or_default()
    };
    let mut found: Vec<(usize, StrictError)> = Vec::new();
    for path in unknown {
        found.push((order.get(path).copied().unwrap_or(usize::MAX), StrictError::unknown(path)));
    }
    for duplicate in duplicates {
        if !unknown.contains(&duplicate.path) {
            found.push((duplicate.seq, StrictError::duplicate(&duplicate.path)));
        }
    }
    found.sort_by_key(|(seq, _)| *seq);
    let mut out: Vec<StrictError> = Vec::new();
    for (_, error) in found {
        if !out.contains(&error) {
            out.push(error);
        }
    }
    out
}

/// apimachinery's `summarizeData(body, 30)`: the start of a JSON object as text, of
/// anything else as hex, ` ...` when cut.
pub(crate) fn summarize(body: &[u8]) -> String {
    const MAX: usize = 30;
    let cut = body.len() > MAX;
    let head = &body[..body.len().min(MAX)];
    let mut out = match body.first() {
        None => return "<empty>".to_owned(),
        Some(b'{') => String::from_utf8_lossy(head).into_owned(),
        Some(_) => head.iter().map(|b| format!("{b:02x}")).collect(),
    };
    if cut {
        out.push_str(" ...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Obj {
        #[serde(default)]
        spec: Spec,
    }
    #[derive(serde::Deserialize, Debug, PartialEq, Default)]
    struct Spec {
        #[serde(default)]
        replicas: i32,
        #[serde(default)]
        items: Vec<Item>,
    }
    #[derive(serde::Deserialize, Debug, PartialEq, Default)]
    struct Item {
        #[serde(default)]
        name: String,
    }

    fn errors(strict: &[StrictError]) -> Vec<&str> {
        strict.iter().map(|e| e.error.as_str()).collect()
    }

    #[test]
    fn unknown_fields_in_document_order() {
        let body = br#"{"spec":{"zz":1,"replicas":2,"items":[{"name":"a","foo":1}],"aa":2}}"#;
        let d = decode::<Obj>(body, BodyFormat::Json, "Obj", "v1").unwrap();
        assert_eq!(d.value.spec.replicas, 2);
        assert_eq!(
            errors(&d.strict),
            [r#"unknown field "spec.zz""#, r#"unknown field "spec.items[0].foo""#, r#"unknown field "spec.aa""#]
        );
    }

    #[test]
    fn duplicates_interleaved_last_wins() {
        let body = br#"{"spec":{"zz":1,"replicas":1,"zz":3,"replicas":2,"items":[{"name":"a","name":"b"}],"aa":2}}"#;
        let d = decode::<Obj>(body, BodyFormat::Json, "Obj", "v1").unwrap();
        assert_eq!(d.value.spec.replicas, 2);
        assert_eq!(d.value.spec.items[0].name, "b");
        assert_eq!(
            errors(&d.strict),
            [
                r#"unknown field "spec.zz""#,
                r#"duplicate field "spec.replicas""#,
                r#"duplicate field "spec.items[0].name""#,
                r#"unknown field "spec.aa""#,
            ]
        );
    }

    #[test]
    fn yaml_duplicates_like_go_yaml() {
        let body = b"spec:\n  replicas: 1\n  replicas: 2\n  foo: x\n";
        let d = decode::<Obj>(body, BodyFormat::Yaml, "Obj", "v1").unwrap();
        assert_eq!(d.value.spec.replicas, 2);
        assert_eq!(
            errors(&d.strict),
            ["yaml: unmarshal errors:\n  line 3: key \"replicas\" already set in map", r#"unknown field "spec.foo""#]
        );
        assert_eq!(d.strict[0].warnings, [r#"line 3: key "replicas" already set in map"#]);
    }

    #[test]
    fn malformed_and_mistyped() {
        let Err(DecodeError::Unrecognized(m)) = decode::<Obj>(b"{\"spec\": ", BodyFormat::Json, "Obj", "v1") else {
            panic!()
        };
        assert_eq!(
            m,
            "the object provided is unrecognized (must be of type Obj): couldn't get version/kind; json parse error: EOF while parsing a value at line 1 column 9 ({\"spec\": )"
        );
        let Err(DecodeError::CannotHandle(m)) = decode::<Obj>(
            br#"{"kind":"Thing","apiVersion":"x.io/v9","spec":{"replicas":"a"}}"#,
            BodyFormat::Json,
            "Obj",
            "v1",
        ) else {
            panic!()
        };
        assert_eq!(
            m,
            r#"Thing in version "v9" cannot be handled as a Obj: invalid type: string "a", expected i32 at line 1 column 61"#
        );
    }

    #[test]
    fn summaries() {
        assert_eq!(summarize(b""), "<empty>");
        assert_eq!(summarize(b"[1]"), "5b315d");
        assert_eq!(summarize(&[b'{'; 40]), format!("{} ...", "{".repeat(30)));
    }
}
