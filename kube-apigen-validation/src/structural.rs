//! Custom resources checked at run time against the schema of their definition, as
//! apiextensions-apiserver checks them: the same rules the generated models compile, read
//! from the JSON schema instead.
//!
//! [`check`] takes an object as sent and answers it as it would be stored, with every
//! error:
//!
//! 1. **pruning**: fields the schema does not name are dropped, except under
//!    `x-kubernetes-preserve-unknown-fields` (`apiVersion`, `kind` and `metadata` are kept
//!    at the root and in `x-kubernetes-embedded-resource` values); [`pruned_fields`] names
//!    them, for `fieldValidation=Strict`;
//! 2. **defaults**: an absent (or `null`, unless `nullable`) property takes its
//!    `default`, and the default's own properties theirs; other nulls are dropped unless
//!    `nullable`;
//! 3. **validation**: types (`x-kubernetes-int-or-string` takes both), `required`,
//!    bounds, lengths, `pattern`, `enum`, `format`, item and property counts,
//!    `uniqueItems` and `x-kubernetes-list-type` `set` and `map`, CEL rules (with
//!    `oldSelf`, the stored value at the same place, for transition rules), and the
//!    object-meta conventions at the root — with the wording of [`crate::rules`] and
//!    [`crate::cel`], so that these errors are the ones the compiled checks report.
//!
//! Compiled CEL rules and patterns are kept per process, by their source.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde_json::{Map, Value};

use kube_apigen_core::Scope;
use kube_apigen_core::field::{ErrorList, FieldError, Path};

use crate::cel::{CelRule, CelRuleSpec};
use crate::meta::{self, NameRule, ObjectMetaView};
use crate::rules::{self, Pattern};

/// The fields the root keeps whatever its schema says.
const ROOT_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// `object` as the API server stores it (pruned, defaulted) and its errors. `schema` is a
/// definition version's `openAPIV3Schema`; `old` the stored object on updates; `scope`
/// the kind's, for the checks of `metadata`.
pub fn check(schema: &Value, scope: Scope, object: &Value, old: Option<&Value>) -> (Value, ErrorList) {
    let mut object = object.clone();
    normalize(schema, &mut object, true);
    let mut errors = ErrorList::new();
    validate_meta(&object, scope, &mut errors);
    validate(schema, &object, old, &Path::ROOT, true, &mut errors);
    (object, errors)
}

/// Dotted paths (`spec.foo`, `spec.items[0].bar`) of the fields of `object` that pruning
/// drops, in the order they appear.
pub fn pruned_fields(schema: &Value, object: &Value) -> Vec<String> {
    let mut out = Vec::new();
    pruned(schema, object, String::new(), true, &mut out);
    out
}

fn flag(schema: &Value, key: &str) -> bool {
    schema.get(key) == Some(&Value::Bool(true))
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// Whether an object node keeps `key` when pruned.
fn keeps(schema: &Value, key: &str, root: bool) -> bool {
    flag(schema, "x-kubernetes-preserve-unknown-fields")
        || schema.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false))
        || properties(schema).is_some_and(|p| p.contains_key(key))
        || ((root || flag(schema, "x-kubernetes-embedded-resource")) && ROOT_FIELDS.contains(&key))
}

/// The schema of `key`'s value in an object node, if it has one.
fn child<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    properties(schema).and_then(|p| p.get(key)).or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
}

fn pruned(schema: &Value, value: &Value, path: String, root: bool, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            let embedded = root || flag(schema, "x-kubernetes-embedded-resource");
            for (key, field) in fields {
                let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                if !keeps(schema, key, root) {
                    out.push(at);
                } else if embedded && ROOT_FIELDS.contains(&key.as_str()) {
                } else if let Some(schema) = child(schema, key) {
                    pruned(schema, field, at, false, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    pruned(schema, item, format!("{path}[{index}]"), false, out);
                }
            }
        }
        _ => {}
    }
}

/// Prunes and defaults `value` in place.
fn normalize(schema: &Value, value: &mut Value, root: bool) {
    match value {
        Value::Object(fields) => {
            fields.retain(|key, _| keeps(schema, key, root));
            for (key, property) in properties(schema).into_iter().flatten() {
                let Some(default) = property.get("default") else {
                    continue;
                };
                let absent = match fields.get(key) {
                    None => true,
                    Some(Value::Null) => !flag(property, "nullable"),
                    Some(_) => false,
                };
                if absent {
                    fields.insert(key.clone(), default.clone());
                }
            }
            // A null the schema does not allow is dropped, as the API server drops it.
            fields.retain(|key, field| !field.is_null() || child(schema, key).is_none_or(|s| flag(s, "nullable")));
            let embedded = root || flag(schema, "x-kubernetes-embedded-resource");
            for (key, field) in fields.iter_mut() {
                // An object's own `metadata` is the API server's to check, not the schema's.
                if embedded && ROOT_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                if let Some(schema) = child(schema, key) {
                    normalize(schema, field, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = schema.get("items") {
                items.iter_mut().for_each(|item| normalize(schema, item, false));
            }
        }
        _ => {}
    }
}

/// The object-meta conventions the compiled checks apply at the root.
fn validate_meta(object: &Value, scope: Scope, errors: &mut ErrorList) {
    let metadata = object.get("metadata").unwrap_or(&Value::Null);
    let text = |key: &str| metadata.get(key).and_then(Value::as_str).unwrap_or_default();
    let map = |key: &str| -> Option<BTreeMap<String, String>> {
        let fields = metadata.get(key)?.as_object()?;
        Some(fields.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect())
    };
    let (labels, annotations) = (map("labels"), map("annotations"));
    let view = ObjectMetaView {
        name: text("name"),
        generate_name: text("generateName"),
        namespace: text("namespace"),
        labels: labels.as_ref(),
        annotations: annotations.as_ref(),
    };
    meta::validate_object_meta(&Path::ROOT.field("metadata"), view, scope, NameRule::Dns1123Subdomain, errors);
}

/// The schema `type` of a JSON value, as a type mismatch names it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match (expected, value) {
        ("", _) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        (expected, value) => expected == json_type(value),
    }
}

fn validate(schema: &Value, value: &Value, old: Option<&Value>, path: &Path<'_>, root: bool, errors: &mut ErrorList) {
    let type_ = schema.get("type").and_then(Value::as_str).unwrap_or("");
    if flag(schema, "x-kubernetes-int-or-string") {
        if !matches!(value, Value::String(_)) && !type_matches("integer", value) {
            let actual = json_type(value);
            errors.push(FieldError::type_invalid(
                path,
                actual,
                format!("{path} in body must be of type integer,string: \"{actual}\""),
            ));
            return;
        }
    } else if !type_matches(type_, value) {
        let actual = json_type(value);
        errors.push(FieldError::type_invalid(
            path,
            actual,
            format!("{path} in body must be of type {type_}: \"{actual}\""),
        ));
        return;
    }
    match value {
        Value::Object(fields) => validate_object(schema, fields, old, path, root, errors),
        Value::Array(items) => validate_array(schema, items, path, errors),
        Value::String(text) => validate_string(schema, text, path, errors),
        Value::Number(_) => validate_number(schema, value, path, errors),
        _ => {}
    }
    validate_enum(schema, value, path, errors);
    validate_rules(schema, value, old, path, root, errors);
}

fn validate_object(
    parent: &Value,
    fields: &Map<String, Value>,
    old: Option<&Value>,
    path: &Path<'_>,
    root: bool,
    errors: &mut ErrorList,
) {
    let count = |key: &str| parent.get(key).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(max) = count("maxProperties") {
        rules::max_properties(path, fields.len(), max, errors);
    }
    if let Some(min) = count("minProperties") {
        rules::schema::min_properties(path, fields.len(), min, errors);
    }
    for required in parent.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if fields.get(required).is_none_or(Value::is_null) {
            rules::required(&path.field(required), errors);
        }
    }
    for (key, field) in fields {
        if field.is_null() || (root && ROOT_FIELDS.contains(&key.as_str())) {
            continue;
        }
        let Some(schema) = child(parent, key) else {
            continue;
        };
        // A named property is a field (`.key`), a value of a map a key (`[key]`).
        let named = properties(parent).is_some_and(|p| p.contains_key(key));
        let at = if named { path.field(key) } else { path.key(key) };
        validate(schema, field, old.and_then(|old| old.get(key)), &at, false, errors);
    }
}

fn validate_array(schema: &Value, items: &[Value], path: &Path<'_>, errors: &mut ErrorList) {
    let count = |key: &str| schema.get(key).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(max) = count("maxItems") {
        rules::max_items(path, items.len(), max, errors);
    }
    if let Some(min) = count("minItems") {
        rules::schema::min_items(path, items.len(), min, errors);
    }
    let list_type = schema.get("x-kubernetes-list-type").and_then(Value::as_str);
    if flag(schema, "uniqueItems") || list_type == Some("set") {
        rules::unique_items(path, items, errors);
    }
    if list_type == Some("map") {
        let keys: Vec<&str> = schema
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let key_values = |item: &Value| keys.iter().map(|k| item.get(*k).cloned().unwrap_or(Value::Null)).collect();
        let same = |a: &Value, b: &Value| keys.iter().all(|k| a.get(*k) == b.get(*k));
        rules::unique_by(path, items, &keys, same, key_values, errors);
    }
    if let Some(item_schema) = schema.get("items") {
        for (index, item) in items.iter().enumerate() {
            if !item.is_null() {
                validate(item_schema, item, None, &path.index(index), false, errors);
            }
        }
    }
}

fn validate_string(schema: &Value, text: &str, path: &Path<'_>, errors: &mut ErrorList) {
    let count = |key: &str| schema.get(key).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(max) = count("maxLength") {
        rules::max_length(path, text, max, errors);
    }
    if let Some(min) = count("minLength") {
        rules::schema::min_length(path, text, min, errors);
    }
    if let Some(source) = schema.get("pattern").and_then(Value::as_str) {
        rules::schema::pattern(pattern(source), path, text, errors);
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        rules::schema::format(path, format, text, errors);
    }
}

fn validate_number(schema: &Value, value: &Value, path: &Path<'_>, errors: &mut ErrorList) {
    let exclusive = |key: &str| flag(schema, key);
    let integer = value.as_i64().filter(|_| schema.get("type").and_then(Value::as_str) == Some("integer"));
    for (key, exclusive_key, is_minimum) in
        [("minimum", "exclusiveMinimum", true), ("maximum", "exclusiveMaximum", false)]
    {
        let Some(bound) = schema.get(key).and_then(Value::as_f64) else {
            continue;
        };
        let exclusive = exclusive(exclusive_key);
        // Integers against whole bounds read as integers (`0`, not `0.0`).
        match integer.filter(|_| bound.fract() == 0.0) {
            Some(value) if is_minimum => rules::schema::minimum(path, value, bound as i64, exclusive, errors),
            Some(value) => rules::schema::maximum(path, value, bound as i64, exclusive, errors),
            None => {
                let value = value.as_f64().unwrap_or_default();
                if is_minimum {
                    rules::schema::minimum(path, value, bound, exclusive, errors);
                } else {
                    rules::schema::maximum(path, value, bound, exclusive, errors);
                }
            }
        }
    }
}

fn validate_enum(schema: &Value, value: &Value, path: &Path<'_>, errors: &mut ErrorList) {
    let Some(allowed) = schema.get("enum").and_then(Value::as_array) else {
        return;
    };
    if allowed.contains(value) {
        return;
    }
    let supported: Vec<String> =
        allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect();
    let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
    match value {
        Value::String(text) => rules::not_supported(path, text, &supported, errors),
        other => errors.push(FieldError::not_supported(path, other.clone(), &supported)),
    }
}

fn validate_rules(
    schema: &Value,
    value: &Value,
    old: Option<&Value>,
    path: &Path<'_>,
    root: bool,
    errors: &mut ErrorList,
) {
    let Some(list) = schema.get("x-kubernetes-validations").and_then(Value::as_array) else {
        return;
    };
    let type_ = if flag(schema, "x-kubernetes-int-or-string") {
        ""
    } else {
        schema.get("type").and_then(Value::as_str).unwrap_or("")
    };
    let shown;
    let value = if root {
        // The root's rules see `metadata` with only its name and generated name, as the
        // API server gives it to them; `apiVersion` and `kind` too.
        let mut fields = value.as_object().cloned().unwrap_or_default();
        if let Some(Value::Object(meta)) = fields.get_mut("metadata") {
            meta.retain(|key, _| key == "name" || key == "generateName");
        }
        shown = Value::Object(fields);
        &shown
    } else {
        value
    };
    for rule in list {
        compiled(rule).check_typed(path, type_, value, old, errors);
    }
}

/// The compiled rule of an `x-kubernetes-validations` entry, kept per process.
fn compiled(rule: &Value) -> Arc<CelRule> {
    static RULES: LazyLock<Mutex<HashMap<String, Arc<CelRule>>>> = LazyLock::new(Default::default);
    let key = rule.to_string();
    let mut rules = RULES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = rules.get(&key) {
        return Arc::clone(found);
    }
    let text = |name: &str| rule.get(name).and_then(Value::as_str);
    let mut spec = CelRuleSpec::new(text("rule").unwrap_or_default());
    if let Some(message) = text("message") {
        spec = spec.with_message(message);
    }
    if let Some(expression) = text("messageExpression") {
        spec = spec.with_message_expression(expression);
    }
    if let Some(field_path) = text("fieldPath") {
        spec = spec.with_field_path(field_path);
    }
    if let Some(reason) = text("reason") {
        spec = spec.with_reason(reason);
    }
    let compiled = Arc::new(CelRule::new(&spec));
    rules.insert(key, Arc::clone(&compiled));
    compiled
}

/// The pattern of `source`, kept per process (patterns are compiled on first use).
fn pattern(source: &str) -> &'static Pattern {
    static PATTERNS: LazyLock<Mutex<HashMap<String, &'static Pattern>>> = LazyLock::new(Default::default);
    let mut patterns = PATTERNS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = patterns.get(source) {
        return found;
    }
    let leaked: &'static str = Box::leak(source.to_owned().into_boxed_str());
    let pattern: &'static Pattern = Box::leak(Box::new(Pattern::new(leaked)));
    patterns.insert(source.to_owned(), pattern);
    pattern
}
