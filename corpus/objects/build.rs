//! Realistic objects of each upstream CRD's kind, run through the types generated from
//! the CRDs (the `crds` member of the corpus workspace).
//!
//! This is the build script of the `objects` member: the corpus test checks every member
//! with one `cargo clippy`, and a build script is the one thing such a call runs, so the
//! objects are checked here, with `crds` as a build dependency. Each problem becomes a
//! `compile_error!` in `problems.rs`, which `lib.rs` includes: the problems are reported as
//! the errors of this member, as the facts crate's are.
//!
//! A valid object must parse as YAML, decode into its type, re-encode to exactly the JSON
//! it was decoded from plus the CRD `default`s decoding fills in (named for each object),
//! carry the `apiVersion` and `kind` of its type, and validate without errors. An invalid
//! object must decode, and validate with exactly the expected field errors, each of which
//! starts with the text given.

use std::fmt::Write as _;
use std::path::PathBuf;

use crds::com::coreos::monitoring::v1::{Probe, ServiceMonitor};
use crds::io::cert_manager::v1::Certificate;
use kube_apigen::{Resource, Validate};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn main() {
    let checks = [
        ("certificate.yaml", valid::<Certificate>(include_str!("certificate.yaml"), &[])),
        (
            "probe.yaml",
            valid::<Probe>(
                include_str!("probe.yaml"),
                &[
                    ("/spec/prober/path", json!("/probe")),
                    ("/spec/targets/staticConfig/relabelingConfigs/0/action", json!("replace")),
                ],
            ),
        ),
        (
            "servicemonitor.yaml",
            valid::<ServiceMonitor>(
                include_str!("servicemonitor.yaml"),
                &[("/spec/endpoints/1/relabelings/0/action", json!("replace"))],
            ),
        ),
        (
            "certificate.invalid.yaml",
            invalid::<Certificate>(
                include_str!("certificate.invalid.yaml"),
                &[r#"spec.privateKey.algorithm: Unsupported value: "rsa": supported values: "RSA", "ECDSA", "Ed25519""#],
            ),
        ),
        (
            "probe.invalid.yaml",
            invalid::<Probe>(
                include_str!("probe.invalid.yaml"),
                &[r#"spec.interval: Invalid value: "30sec": spec.interval in body should match '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'"#],
            ),
        ),
        (
            "servicemonitor.invalid.yaml",
            invalid::<ServiceMonitor>(
                include_str!("servicemonitor.invalid.yaml"),
                &[r#"spec.endpoints[1].scheme: Unsupported value: "HTTPS": supported values: "http", "https""#],
            ),
        ),
    ];
    let mut out = String::from("// Written by the build script: one compile_error! per problem.\n");
    for (file, problems) in &checks {
        for problem in problems {
            let _ = writeln!(out, "compile_error!({:?});", format!("{file}: {problem}"));
        }
    }
    let _ = writeln!(out, "\n/// How many objects were checked.\npub const OBJECTS: usize = {};", checks.len());
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dir.join("problems.rs"), out).expect("cannot write problems.rs");
}

/// Parses the YAML and decodes its JSON text into `T`.
fn decode<T: DeserializeOwned>(yaml: &str) -> Result<(Value, T), String> {
    let input: Value = serde_saphyr::from_str(yaml).map_err(|e| format!("not YAML: {e}"))?;
    let object = serde_json::from_str(&input.to_string())
        .map_err(|e| format!("does not decode as {}: {e}", std::any::type_name::<T>()))?;
    Ok((input, object))
}

fn valid<T>(yaml: &str, defaults: &[(&str, Value)]) -> Vec<String>
where
    T: DeserializeOwned + Serialize + Validate + Resource,
{
    let (input, object) = match decode::<T>(yaml) {
        Ok(decoded) => decoded,
        Err(problem) => return vec![problem],
    };
    let mut problems = Vec::new();
    for (field, expected) in [("apiVersion", T::INFO.api_version().as_str()), ("kind", T::INFO.kind)] {
        if input.get(field).and_then(Value::as_str) != Some(expected) {
            problems.push(format!("{field} is not {expected:?}"));
        }
    }
    let mut expected = input.clone();
    for (pointer, value) in defaults {
        if let Err(problem) = insert(&mut expected, pointer, value.clone()) {
            problems.push(problem);
        }
    }
    match serde_json::to_value(&object) {
        Ok(output) => {
            let mut differences = Vec::new();
            diff("", &expected, &output, &mut differences);
            problems.extend(differences.into_iter().map(|d| format!("re-encoded differently: {d}")));
        }
        Err(e) => problems.push(format!("does not encode: {e}")),
    }
    problems.extend(object.validate().iter().map(|e| format!("unexpected field error: {e}")));
    problems
}

fn invalid<T: DeserializeOwned + Validate>(yaml: &str, expected: &[&str]) -> Vec<String> {
    let object = match decode::<T>(yaml) {
        Ok((_, object)) => object,
        Err(problem) => return vec![problem],
    };
    let errors: Vec<String> = object.validate().iter().map(ToString::to_string).collect();
    let matches = errors.len() == expected.len() && errors.iter().zip(expected).all(|(e, start)| e.starts_with(start));
    if matches { Vec::new() } else { vec![format!("expected field errors starting with {expected:#?}, got {errors:#?}")] }
}

/// Adds a member the value must not have yet, at a JSON pointer whose parent exists.
fn insert(value: &mut Value, pointer: &str, member: Value) -> Result<(), String> {
    if value.pointer(pointer).is_some() {
        return Err(format!("{pointer} is named as a default, yet the object sets it"));
    }
    let (parent, key) = pointer.rsplit_once('/').ok_or_else(|| format!("{pointer} is not a JSON pointer"))?;
    match value.pointer_mut(parent).and_then(Value::as_object_mut) {
        Some(object) => {
            object.insert(key.replace("~1", "/").replace("~0", "~"), member);
            Ok(())
        }
        None => Err(format!("{pointer}: the object has no object at {parent:?}")),
    }
}

/// Where `actual` differs from `expected`, as `pointer: expected ..., got ...`.
fn diff(pointer: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for key in e.keys().chain(a.keys().filter(|k| !e.contains_key(*k))) {
                let path = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (e.get(key), a.get(key)) {
                    (Some(e), Some(a)) => diff(&path, e, a, out),
                    (Some(e), None) => out.push(format!("{path}: expected {e}, missing")),
                    (None, Some(a)) => out.push(format!("{path}: not expected, got {a}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (index, (e, a)) in e.iter().zip(a).enumerate() {
                diff(&format!("{pointer}/{index}"), e, a, out);
            }
        }
        _ if expected == actual => {}
        _ => out.push(format!("{}: expected {expected}, got {actual}", if pointer.is_empty() { "/" } else { pointer })),
    }
}
