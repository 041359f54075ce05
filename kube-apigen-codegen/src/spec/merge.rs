//! Schemas that several documents define, and the ones only the built-in document has.
//!
//! Kubernetes publishes one document per group/version, and each repeats the shared
//! schemas (`meta/v1`, ...), sometimes from different releases. [`merge`] keeps one
//! definition per name: the one whose fields are a superset of the others' (a newer
//! release adding optional fields), else the first, with notes saying what was chosen.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{DocId, Document, Origin};
use crate::error::{Error, Result, escape_pointer_segment};

/// The named schemas to read, by name: the document and the JSON chosen for each.
pub struct Merged<'d> {
    pub chosen: BTreeMap<String, (DocId, &'d Value)>,
    pub notes: Vec<String>,
}

/// Chooses one definition per schema name, then adds the built-in schemas something
/// refers to that no document defines.
pub fn merge(documents: &[Document]) -> Result<Merged<'_>> {
    let mut merger = Merger { documents, chosen: BTreeMap::new(), merges: Merges::default() };
    for (index, document) in documents.iter().enumerate() {
        if document.origin != Origin::BuiltIn {
            merger.collect(DocId::new(index))?;
        }
    }
    merger.use_runtime_definitions()?;
    merger.fill_gaps();
    let notes = merger.notes();
    let chosen = merger.chosen.into_iter().map(|(name, (doc, value))| (name.to_owned(), (doc, value))).collect();
    Ok(Merged { chosen, notes })
}

struct Merger<'d> {
    documents: &'d [Document],
    chosen: BTreeMap<&'d str, (DocId, &'d Value)>,
    merges: Merges<'d>,
}

/// Schemas defined differently by several documents, by how they differ.
#[derive(Default)]
struct Merges<'d> {
    /// One document's fields are a superset of another's: the superset is used.
    superset: BTreeSet<&'d str>,
    /// Same fields, different descriptions or `x-` extensions: the first version is used.
    docs_only: BTreeSet<&'d str>,
    /// Same fields and type, other differences (formats, rules): the first version is used.
    /// The value holds the first two documents found to differ.
    other: BTreeMap<&'d str, (DocId, DocId)>,
    /// Notes on fields of meta types the runtime's definitions lack.
    dropped: Vec<String>,
}

impl<'d> Merger<'d> {
    fn document(&self, doc: DocId) -> &'d Document {
        &self.documents[doc.index()]
    }

    /// Adds the document's `components.schemas`, merging schemas that several documents repeat.
    fn collect(&mut self, doc: DocId) -> Result<()> {
        let document = &self.document(doc).raw;
        let Some(schemas) = document.value.pointer("/components/schemas") else {
            return Ok(());
        };
        let Some(schemas) = schemas.as_object() else {
            return Err(document.error("/components/schemas", "must be an object"));
        };
        for (name, value) in schemas {
            let candidate = (doc, value);
            let Some(&existing) = self.chosen.get(name.as_str()) else {
                self.chosen.insert(name, candidate);
                continue;
            };
            if existing.1 == value {
                continue;
            }
            let chosen = self.choose(name, existing, candidate)?;
            self.chosen.insert(name, chosen);
        }
        Ok(())
    }

    /// Chooses between two different definitions of one schema name: the one whose fields
    /// are a superset of the other's, or, when both have the same fields, the first one.
    fn choose(
        &mut self,
        name: &'d str,
        old: (DocId, &'d Value),
        new: (DocId, &'d Value),
    ) -> Result<(DocId, &'d Value)> {
        let (old_fields, new_fields) = (field_names(old.1), field_names(new.1));
        if old_fields == new_fields {
            if old.1.get("type") != new.1.get("type") {
                return Err(self.conflict(name, old.0, new.0, "they have different types"));
            }
            if same_ignoring_docs(old.1, new.1, false) {
                self.merges.docs_only.insert(name);
            } else {
                self.merges.other.entry(name).or_insert((old.0, new.0));
            }
            return Ok(old);
        }
        let chosen = if new_fields.is_superset(&old_fields) {
            new
        } else if old_fields.is_superset(&new_fields) {
            old
        } else {
            return Err(self.conflict(name, old.0, new.0, "neither one's fields are a superset of the other's"));
        };
        self.merges.superset.insert(name);
        Ok(chosen)
    }

    fn conflict(&self, name: &str, old: DocId, new: DocId, why: &str) -> Error {
        let pointer = format!("/components/schemas/{}", escape_pointer_segment(name));
        self.document(new).raw.error(
            &pointer,
            format!(
                "schema {name} is defined differently here and in {} and {why}",
                self.document(old).raw.display_path.display()
            ),
        )
    }

    /// Adds the built-in schemas that something refers to and no other document defines,
    /// and the ones those refer to: from the other documents, or from the runtime's
    /// definitions chosen for them.
    fn fill_gaps(&mut self) {
        let documents = self.documents;
        let built_in = || documents.iter().enumerate().filter(|(_, d)| d.origin == Origin::BuiltIn);
        let chosen_built_in: Vec<&Value> = self
            .chosen
            .values()
            .filter(|(doc, _)| documents[doc.index()].origin == Origin::BuiltIn)
            .map(|&(_, value)| value)
            .collect();
        let roots =
            documents.iter().filter(|d| d.origin != Origin::BuiltIn).map(|d| &d.raw.value).chain(chosen_built_in);
        let found = missing_schemas(
            roots,
            |name| self.chosen.contains_key(name),
            |name| built_in().find_map(|(doc, d)| schema(&d.raw.value, name).map(|value| (DocId::new(doc), value))),
        );
        for (name, doc, value) in found {
            self.chosen.insert(name, (doc, value));
        }
    }

    /// Replaces each definition of a meta type the runtime defines ([`crate::runtime`]) by
    /// the runtime's, which the built-in document holds: generated crates share the
    /// runtime's type. A field of another shape than the runtime's is an error; a field the
    /// runtime's lacks (an older release's, such as 1.23's `ObjectMeta.clusterName`) gets a
    /// note, as decoding drops it; having fewer fields is fine.
    fn use_runtime_definitions(&mut self) -> Result<()> {
        let Some(built_in) = self.documents.iter().position(|d| d.origin == Origin::BuiltIn).map(DocId::new) else {
            return Ok(());
        };
        let documents = self.documents;
        for (name, chosen) in self.chosen.iter_mut() {
            if chosen.0 == built_in || !crate::runtime::defines(name) {
                continue;
            }
            let Some(runtime) = schema(&documents[built_in.index()].raw.value, name) else { continue };
            let (doc, value) = *chosen;
            let runtime_fields = runtime.get("properties").and_then(Value::as_object);
            let in_runtime = |name: &str| schema(&documents[built_in.index()].raw.value, name);
            let in_spec = |name: &str| schema(&documents[doc.index()].raw.value, name);
            for (field, definition) in value.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let document = &documents[doc.index()].raw;
                match runtime_fields.and_then(|fields| fields.get(field)) {
                    None => self.merges.dropped.push(format!(
                        "field {field} of {name} in {} is not a field of the kube-apigen runtime's {name}, which generated crates share: decoding drops it",
                        document.display_path.display()
                    )),
                    Some(runtime) if shape(runtime, &in_runtime) != shape(definition, &in_spec) => {
                        let pointer = format!(
                            "/components/schemas/{}/properties/{}",
                            escape_pointer_segment(name),
                            escape_pointer_segment(field)
                        );
                        return Err(document.error(
                            &pointer,
                            format!("field {field} of {name} has another type than in the kube-apigen runtime's {name}, which generated crates share"),
                        ));
                    }
                    Some(_) => {}
                }
            }
            *chosen = (built_in, runtime);
        }
        Ok(())
    }

    /// Notes on the merges: one per schema (and set of added fields) whose field sets
    /// differ, one per schema that differs otherwise beyond its documentation, and one
    /// summary of the schemas that differ only in descriptions or extensions. The meta
    /// types the runtime defines are its own whatever the documents say: no notes.
    fn notes(&self) -> Vec<String> {
        let path = |doc: DocId| self.document(doc).raw.display_path.display().to_string();
        let mut notes = Vec::new();
        for &name in self.merges.superset.iter().filter(|name| !crate::runtime::defines(name)) {
            let (chosen_doc, chosen) = self.chosen[name];
            let chosen_fields = field_names(chosen);
            // Documents grouped by the fields the chosen definition adds to theirs.
            let mut groups: BTreeMap<Vec<&str>, Vec<String>> = BTreeMap::new();
            for (index, document) in self.documents.iter().enumerate() {
                let Some(schema) = schema(&document.raw.value, name) else { continue };
                let fields = field_names(schema);
                if fields != chosen_fields {
                    let added = chosen_fields.iter().filter(|f| !fields.contains(*f)).map(String::as_str).collect();
                    groups.entry(added).or_default().push(path(DocId::new(index)));
                }
            }
            for (added, others) in groups {
                let noun = if added.len() == 1 { "field" } else { "fields" };
                notes.push(format!(
                    "schema {name} differs between {chosen} and {others}; using the one from {chosen}, which adds the {noun} {added}",
                    chosen = path(chosen_doc),
                    others = others.join(", "),
                    added = added.join(", "),
                ));
            }
        }
        for (&name, &(first, second)) in &self.merges.other {
            if !self.merges.superset.contains(name) && !crate::runtime::defines(name) {
                notes.push(format!(
                    "schema {name} differs between {} and {} beyond descriptions and extensions, with the same fields; using the one from {}",
                    path(first),
                    path(second),
                    path(first),
                ));
            }
        }
        let docs_only: Vec<&str> = self
            .merges
            .docs_only
            .iter()
            .copied()
            .filter(|name| !self.merges.superset.contains(name) && !self.merges.other.contains_key(name))
            .filter(|name| !crate::runtime::defines(name))
            .collect();
        notes.extend(self.merges.dropped.iter().cloned());
        if !docs_only.is_empty() {
            let (count, verb) = match docs_only.len() {
                1 => ("1 schema".to_owned(), "differs"),
                n => (format!("{n} schemas"), "differ"),
            };
            notes.push(format!(
                "{count} {verb} between documents only in descriptions or extensions; the first document's version is used: {}",
                docs_only.join(", ")
            ));
        }
        notes
    }
}

/// The document served for a group/version, from the documents `sources` (see
/// [`super::Spec::served_document`]).
pub fn served_document(documents: &[Document], sources: &BTreeSet<DocId>) -> Value {
    let sources: Vec<&Value> = sources.iter().map(|doc| &documents[doc.index()].raw.value).collect();
    let missing = missing_schemas(
        sources.iter().copied(),
        |name| sources.iter().any(|source| schema(source, name).is_some()),
        |name| documents.iter().find_map(|d| schema(&d.raw.value, name)).map(|schema| ((), schema)),
    );
    let mut served = sources.first().map(|&first| first.clone()).unwrap_or_default();
    for other in sources.iter().skip(1) {
        for section in ["/paths", "/components/schemas"] {
            if let (Some(Value::Object(into)), Some(Value::Object(from))) =
                (served.pointer_mut(section), other.pointer(section))
            {
                for (key, value) in from {
                    into.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
    }
    if let Some(Value::Object(schemas)) = served.pointer_mut("/components/schemas") {
        for (name, (), schema) in missing {
            schemas.insert(name.to_owned(), schema.clone());
        }
    }
    served
}

/// The schemas `roots` refer to that `defined` does not know, as `find` finds them, with
/// the ones those refer to in turn: what a set of documents needs from elsewhere.
/// `find` answers where a schema is (a tag, such as its document) and the schema.
fn missing_schemas<'v, T>(
    roots: impl IntoIterator<Item = &'v Value>,
    defined: impl Fn(&str) -> bool,
    find: impl Fn(&str) -> Option<(T, &'v Value)>,
) -> Vec<(&'v str, T, &'v Value)> {
    let mut wanted = Vec::new();
    for root in roots {
        references(root, &mut wanted);
    }
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    while let Some(name) = wanted.pop() {
        if defined(name) || !seen.insert(name) {
            continue;
        }
        if let Some((tag, value)) = find(name) {
            references(value, &mut wanted);
            found.push((name, tag, value));
        }
    }
    found
}

/// A schema of a document's `components.schemas`.
fn schema<'v>(document: &'v Value, name: &str) -> Option<&'v Value> {
    document.pointer("/components/schemas").and_then(|schemas| schemas.get(name))
}

/// Adds the schema names `value` refers to (`#/components/schemas/<name>`) to `out`.
fn references<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(target)) => out.extend(target.strip_prefix("#/components/schemas/")),
                    _ => references(inner, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, out)),
        _ => {}
    }
}

/// What a field's schema says of its Rust type: its type, format and reference, and those
/// of its items and values; descriptions, defaults and extensions aside. A reference to a
/// schema without properties (`RawExtension`: any object) is that schema's shape, found
/// with `resolve` (a few references deep, so that an alias of itself ends).
fn shape<'v>(schema: &Value, resolve: &dyn Fn(&str) -> Option<&'v Value>) -> Value {
    shape_within(schema, resolve, 4)
}

fn shape_within<'v>(schema: &Value, resolve: &dyn Fn(&str) -> Option<&'v Value>, depth: usize) -> Value {
    let reference = schema.get("$ref").or_else(|| schema.pointer("/allOf/0/$ref")).and_then(Value::as_str);
    let target = reference.and_then(|r| r.strip_prefix("#/components/schemas/")).and_then(resolve);
    if let Some(target) = target.filter(|target| depth > 0 && target.get("properties").is_none()) {
        return shape_within(target, resolve, depth - 1);
    }
    let inner = |key: &str| schema.get(key).map_or(Value::Null, |inner| shape_within(inner, resolve, depth));
    serde_json::json!([
        schema.get("type"),
        schema.get("format"),
        reference,
        inner("items"),
        inner("additionalProperties")
    ])
}

/// The property names of an object schema.
fn field_names(schema: &Value) -> BTreeSet<String> {
    schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

/// Whether two schemas are equal once descriptions and `x-` extensions are set aside, at
/// every depth. `names` says the objects are maps of property names to schemas, whose
/// keys are names rather than keywords; `default`, `example` and `enum` values are data
/// and compare exactly.
fn same_ignoring_docs(a: &Value, b: &Value, names: bool) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let kept = |key: &&String| names || !(*key == "description" || key.starts_with("x-"));
            a.keys().filter(kept).count() == b.keys().filter(kept).count()
                && a.iter().filter(|(key, _)| kept(key)).all(|(key, a_value)| {
                    b.get(key).is_some_and(|b_value| match key.as_str() {
                        _ if names => same_ignoring_docs(a_value, b_value, false),
                        "properties" | "patternProperties" => same_ignoring_docs(a_value, b_value, true),
                        "default" | "example" | "enum" => a_value == b_value,
                        _ => same_ignoring_docs(a_value, b_value, false),
                    })
                })
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_ignoring_docs(a, b, false))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::spec::Spec;

    /// Reads documents that each define the schema `io.k8s.Thing` as given.
    fn read_things(things: &[Value]) -> crate::error::Result<Spec> {
        let docs = things
            .iter()
            .enumerate()
            .flat_map(|(i, thing)| {
                let doc = json!({"openapi": "3.0.0", "components": {"schemas": {"io.k8s.Thing": thing}}});
                crate::load::parse(Path::new(&format!("specs/{i}.json")), doc.to_string()).unwrap()
            })
            .collect();
        Spec::read(docs)
    }

    /// A field of ObjectMeta that the runtime's lacks (1.23's `clusterName`) is noted, and
    /// the runtime's definition is used.
    #[test]
    fn a_meta_field_the_runtime_lacks_is_noted() {
        let doc = json!({"openapi": "3.0.0", "components": {"schemas": {
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "clusterName": {"type": "string"}}
            }
        }}});
        let docs = crate::load::parse(Path::new("specs/old.json"), doc.to_string()).unwrap();
        let spec = Spec::read(docs).unwrap();
        assert_eq!(
            spec.notes,
            [
                "field clusterName of io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta in specs/old.json is not a field of the kube-apigen runtime's io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, which generated crates share: decoding drops it"
            ]
        );
        let meta = &spec.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
        assert!(spec.document(meta.loc.doc).origin == Origin::BuiltIn, "the runtime's definition is used");
    }

    fn thing(fields: &[&str], description: &str) -> Value {
        let properties: serde_json::Map<String, Value> =
            fields.iter().map(|f| (f.to_string(), json!({"type": "string", "description": description}))).collect();
        json!({"type": "object", "description": description, "properties": properties})
    }

    #[test]
    fn a_superset_is_chosen_with_a_note_naming_the_added_fields() {
        let spec = read_things(&[thing(&["a"], "old"), thing(&["a", "b", "c"], "new"), thing(&["a"], "old")]).unwrap();
        assert_eq!(
            spec.notes,
            ["schema io.k8s.Thing differs between specs/1.json and specs/0.json, specs/2.json; \
              using the one from specs/1.json, which adds the fields b, c"]
        );
    }

    #[test]
    fn schemas_differing_only_in_documentation_are_counted_in_one_note() {
        let mut tagged = thing(&["a"], "two");
        tagged["x-kubernetes-group-version-kind"] = json!([{"group": "", "version": "v1", "kind": "Thing"}]);
        let spec = read_things(&[thing(&["a"], "one"), tagged]).unwrap();
        assert_eq!(
            spec.notes,
            ["1 schema differs between documents only in descriptions or extensions; \
              the first document's version is used: io.k8s.Thing"]
        );
        assert_eq!(spec.schemas["io.k8s.Thing"].description.as_deref(), Some("one"));
    }

    #[test]
    fn same_fields_with_other_differences_get_a_note_of_their_own() {
        let mut formatted = thing(&["a"], "one");
        formatted["properties"]["a"]["format"] = json!("uuid");
        let spec = read_things(&[thing(&["a"], "one"), formatted]).unwrap();
        assert_eq!(
            spec.notes,
            ["schema io.k8s.Thing differs between specs/0.json and specs/1.json beyond descriptions and \
              extensions, with the same fields; using the one from specs/0.json"]
        );
    }

    #[test]
    fn neither_a_superset_is_an_error() {
        let error = read_things(&[thing(&["a"], ""), thing(&["b"], "")]).unwrap_err();
        assert!(error.message.contains("neither one's fields are a superset"), "{error}");
    }

    #[test]
    fn property_names_are_not_mistaken_for_keywords() {
        let a = json!({"properties": {"description": {"type": "string"}}});
        let b = json!({"properties": {"description": {"type": "integer"}}});
        assert!(!same_ignoring_docs(&a, &b, false));
        let c = json!({"description": "x", "properties": {"description": {"type": "string", "x-k": 1}}});
        assert!(same_ignoring_docs(&a, &c, false));
    }
}
