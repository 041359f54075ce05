//! Named types for the objects nested in a custom resource's schema.
//!
//! A CRD states its whole schema inline; Rust needs a name per struct. Each nested object
//! is named after the resource kind and its property (`spec.prober` -> `ProbeProber`);
//! array items and map values after the singular of theirs (`metricRelabelings` items ->
//! `ProbeMetricRelabeling`). When two different objects would take one name, both take
//! their parent's property too (`ProbeCaSecret`, `ProbeCertSecret`), as often as needed.
//! Objects of identical shape under the same property name share one type (the
//! `secret` selector repeated across TLS settings), so the output stays small.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::escape_pointer_segment;
use crate::naming::{nested_type, singular, unique};

/// Schema keywords that stay with the property when its object moves to a named schema:
/// they describe the use, not the type (a shared type is described at each use).
const USE_KEYWORDS: &[&str] = &["description", "default", "nullable"];

/// A nested object moved to a named schema.
pub struct Extracted {
    pub name: String,
    pub schema: Value,
    /// Where its first occurrence is, relative to the schema the walk started at.
    pub pointer: String,
}

/// One object position found by the walk.
struct Occurrence {
    /// Naming segments from the root: property names, singular for items and map values.
    segments: Vec<String>,
    pointer: String,
    group: usize,
}

/// Objects of one shape under one property name: one type.
struct Group {
    key: String,
    first: usize,
    /// How many trailing segments its name uses.
    depth: usize,
    name: String,
}

/// Replaces every nested object of `root` (a resource schema) with a reference to a named
/// schema, returning those schemas. `taken` holds names already used in the module; the
/// new names are added to it. `reference` turns a type name into its `$ref` target.
pub fn extract(
    kind: &str,
    root: &mut Value,
    taken: &mut BTreeSet<String>,
    reference: &dyn Fn(&str) -> String,
) -> Vec<Extracted> {
    let mut walk = Walk::default();
    walk.children(root, &[], "");
    walk.assign_names(kind, taken);
    let mut extracted: BTreeMap<usize, Extracted> = BTreeMap::new();
    let mut index = 0;
    rewrite_children(root, &walk, &mut index, &mut extracted, reference);
    extracted.into_values().collect()
}

#[derive(Default)]
struct Walk {
    occurrences: Vec<Occurrence>,
    groups: Vec<Group>,
}

impl Walk {
    /// Visits the positions below `schema` in document order.
    fn children(&mut self, schema: &Value, segments: &[String], pointer: &str) {
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let mut child = segments.to_vec();
                child.push(name.clone());
                let pointer = format!("{pointer}/properties/{}", escape_pointer_segment(name));
                self.position(property, child, pointer);
            }
        }
        for keyword in ["items", "additionalProperties"] {
            if let Some(inner @ Value::Object(_)) = schema.get(keyword) {
                let mut child = segments.to_vec();
                if let Some(last) = child.last_mut() {
                    *last = singular(last);
                }
                self.position(inner, child, format!("{pointer}/{keyword}"));
            }
        }
    }

    fn position(&mut self, schema: &Value, segments: Vec<String>, pointer: String) {
        self.children(schema, &segments, &pointer);
        if !is_object(schema) {
            return;
        }
        let key = shape_key(schema, segments.last().map(String::as_str).unwrap_or_default());
        let group = match self.groups.iter().position(|g| g.key == key) {
            Some(group) => group,
            None => {
                self.groups.push(Group { key, first: self.occurrences.len(), depth: 1, name: String::new() });
                self.groups.len() - 1
            }
        };
        self.occurrences.push(Occurrence { segments, pointer, group });
    }

    /// Names every group: its last segment first, more of its path while the name is
    /// contested, a number when the path runs out.
    fn assign_names(&mut self, kind: &str, taken: &mut BTreeSet<String>) {
        let candidate = |group: &Group, occurrences: &[Occurrence]| {
            let segments = &occurrences[group.first].segments;
            let start = segments.len().saturating_sub(group.depth);
            nested_type(kind, &segments[start..])
        };
        loop {
            let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (index, group) in self.groups.iter().enumerate() {
                by_name.entry(candidate(group, &self.occurrences)).or_default().push(index);
            }
            let mut grew = false;
            for (name, groups) in &by_name {
                if groups.len() > 1 || taken.contains(name) {
                    for &index in groups {
                        let group = &mut self.groups[index];
                        if group.depth < self.occurrences[group.first].segments.len() {
                            group.depth += 1;
                            grew = true;
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
        for index in 0..self.groups.len() {
            let name = unique(candidate(&self.groups[index], &self.occurrences), taken, "");
            self.groups[index].name = name;
        }
    }
}

/// Replaces the objects below `schema` with references, innermost first, in the walk's
/// order (so `index` follows [`Walk::occurrences`]).
fn rewrite_children(
    schema: &mut Value,
    walk: &Walk,
    index: &mut usize,
    extracted: &mut BTreeMap<usize, Extracted>,
    reference: &dyn Fn(&str) -> String,
) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            rewrite_position(property, walk, index, extracted, reference);
        }
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(inner @ Value::Object(_)) = schema.get_mut(keyword) {
            rewrite_position(inner, walk, index, extracted, reference);
        }
    }
}

fn rewrite_position(
    schema: &mut Value,
    walk: &Walk,
    index: &mut usize,
    extracted: &mut BTreeMap<usize, Extracted>,
    reference: &dyn Fn(&str) -> String,
) {
    rewrite_children(schema, walk, index, extracted, reference);
    if !is_object(schema) {
        return;
    }
    let occurrence = &walk.occurrences[*index];
    *index += 1;
    let Value::Object(object) = std::mem::take(schema) else { unreachable!("is_object checked it") };
    let mut wrapper = Map::new();
    wrapper.insert(
        "allOf".to_owned(),
        Value::Array(vec![serde_json::json!({"$ref": reference(&walk.groups[occurrence.group].name)})]),
    );
    // The description stays with the use only: `kubectl explain` lists a field with its
    // property's description, and would print a type's own one a second time.
    let (uses, named): (Map<String, Value>, Map<String, Value>) =
        object.into_iter().partition(|(key, _)| USE_KEYWORDS.contains(&key.as_str()));
    wrapper.extend(uses);
    *schema = Value::Object(wrapper);
    extracted.entry(occurrence.group).or_insert_with(|| Extracted {
        name: walk.groups[occurrence.group].name.clone(),
        schema: Value::Object(named),
        pointer: occurrence.pointer.clone(),
    });
}

/// Objects with declared properties become structs; anything else stays where it is.
fn is_object(schema: &Value) -> bool {
    let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    has_properties && matches!(schema.get("type").and_then(Value::as_str), None | Some("object"))
}

/// What makes two objects one type: the property name and the whole schema but for the
/// keywords of the use.
fn shape_key(schema: &Value, segment: &str) -> String {
    let shape = match schema {
        Value::Object(object) => serde_json::to_string(&Shape(object)),
        other => serde_json::to_string(other),
    };
    format!("{segment}\n{}", shape.expect("JSON values serialize"))
}

/// An object without the keywords of the use, serialized as the object itself would be.
/// It borrows the entries: a copy would copy each nested object again for every object
/// around it.
struct Shape<'a>(&'a Map<String, Value>);

impl Serialize for Shape<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().filter(|(key, _)| !USE_KEYWORDS.contains(&key.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn names_of(kind: &str, mut root: Value) -> (Vec<String>, Value) {
        let mut taken = BTreeSet::from([kind.to_owned()]);
        let extracted = extract(kind, &mut root, &mut taken, &|name| format!("#/{name}"));
        (extracted.into_iter().map(|e| e.name).collect(), root)
    }

    fn object(properties: Value) -> Value {
        json!({"type": "object", "properties": properties})
    }

    #[test]
    fn nested_objects_are_named_by_kind_and_property() {
        let selector = object(json!({"name": {"type": "string"}, "key": {"type": "string"}}));
        let root = object(json!({
            "spec": object(json!({
                "prober": object(json!({"url": {"type": "string"}})),
                "endpoints": {"type": "array", "items": object(json!({"port": {"type": "integer"}}))},
                "ca": object(json!({"secret": selector.clone()})),
                "cert": object(json!({"secret": selector.clone()})),
                "oauth": object(json!({"secret": object(json!({"other": {"type": "string"}}))})),
            })),
        }));
        let (names, root) = names_of("Probe", root);
        assert_eq!(
            names,
            [
                "ProbeCaSecret",
                "ProbeCa",
                "ProbeCert",
                "ProbeEndpoint",
                "ProbeOauthSecret",
                "ProbeOauth",
                "ProbeProber",
                "ProbeSpec"
            ]
        );
        // Both TLS selectors share the type of the first.
        assert_eq!(root["properties"]["spec"], json!({"allOf": [{"$ref": "#/ProbeSpec"}]}));
    }

    #[test]
    fn uses_keep_their_description_and_default() {
        let mut root = object(json!({
            "a": {"type": "object", "description": "the thing", "default": {}, "properties": {"x": {"type": "string"}}},
        }));
        let mut taken = BTreeSet::new();
        let extracted = extract("T", &mut root, &mut taken, &|name| name.to_owned());
        assert_eq!(
            root["properties"]["a"],
            json!({"allOf": [{"$ref": "TA"}], "default": {}, "description": "the thing"})
        );
        assert_eq!(extracted[0].schema, json!({"type": "object", "properties": {"x": {"type": "string"}}}));
        assert_eq!(extracted[0].pointer, "/properties/a");
    }

    #[test]
    fn names_avoid_taken_ones_and_number_when_paths_run_out() {
        let root = object(json!({
            "spec": object(json!({"a": {"type": "string"}})),
            "specs": {"type": "array", "items": object(json!({"b": {"type": "string"}}))},
        }));
        let mut taken = BTreeSet::from(["ThingSpec2".to_owned()]);
        let mut root = root;
        let names: Vec<String> =
            extract("Thing", &mut root, &mut taken, &|name| name.to_owned()).into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["ThingSpec", "ThingSpec3"]);
    }
}
