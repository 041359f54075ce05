//! Builds the [`Api`] IR from loaded documents: every naming, merging and boxing decision
//! is made here, once.

mod cycles;
mod handlers;
mod naming;
mod operations;
mod types;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;

use crate::error::{Error, Result, escape_pointer_segment};
use crate::ir::{Api, CelRule, DocumentInfo, SupportType, TypeDef, TypeId};
use crate::load::Document;

pub use handlers::reason_phrase;
pub use naming::{pascal_case, snake_case, unique};

/// Well-known schemas that the support crate implements by hand, because their wire
/// encoding is special or the runtime itself needs them (every error is a `Status`).
const SUPPORT_SCHEMAS: &[(&str, SupportType)] = &[
    ("io.k8s.apimachinery.pkg.api.resource.Quantity", SupportType::Quantity),
    ("io.k8s.apimachinery.pkg.util.intstr.IntOrString", SupportType::IntOrString),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", SupportType::Time),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", SupportType::MicroTime),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Status", SupportType::Status),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails", SupportType::StatusDetails),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause", SupportType::StatusCause),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", SupportType::ListMeta),
];

/// The prefix every Kubernetes schema name starts with; it adds nothing to module paths.
const KUBERNETES_PREFIX: &str = "io.k8s.";

/// Where a named schema was taken from.
#[derive(Clone, Copy)]
struct SchemaSource<'a> {
    doc: usize,
    value: &'a Value,
}

/// Position of a schema node: the document and the JSON pointer inside it.
#[derive(Clone)]
struct Loc {
    doc: usize,
    pointer: String,
}

impl Loc {
    fn join(&self, segment: &str) -> Loc {
        Loc { doc: self.doc, pointer: format!("{}/{}", self.pointer, escape_pointer_segment(segment)) }
    }
}

struct Builder<'a> {
    docs: &'a [Document],
    schemas: BTreeMap<&'a str, SchemaSource<'a>>,
    ids: BTreeMap<&'a str, TypeId>,
    /// Type names taken in each module, so inline types get unique names.
    type_names: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// What merging schemas repeated across documents decided, for the notes.
    merges: Merges<'a>,
    compiled: Compiled,
    api: Api,
}

/// Patterns and CEL rules that compiled already. Specs repeat them (a query parameter in
/// every operation, each rule of a CRD serving one schema in several versions), and
/// compiling them is the costliest part of checking a schema.
#[derive(Default)]
struct Compiled {
    patterns: RefCell<HashSet<String>>,
    rules: RefCell<HashSet<CelRule>>,
}

/// Schemas defined differently by several documents, by how they differ.
#[derive(Default)]
struct Merges<'a> {
    /// One document's fields are a superset of another's: the superset is used.
    superset: BTreeSet<&'a str>,
    /// Same fields, different descriptions or `x-` extensions: the first version is used.
    docs_only: BTreeSet<&'a str>,
    /// Same fields and type, other differences (formats, rules): the first version is used.
    /// The value holds the first two documents found to differ.
    other: BTreeMap<&'a str, (usize, usize)>,
}

impl Builder<'_> {
    fn error(&self, loc: &Loc, message: impl Into<String>) -> Error {
        self.docs[loc.doc].error(&loc.pointer, message)
    }
}

/// Builds the IR from every document of the specs folder.
pub fn build(docs: &[Document]) -> Result<Api> {
    if docs.iter().any(crate::crd::is_crd) {
        return build_documents(&crate::crd::expand(docs)?);
    }
    build_documents(docs)
}

/// Builds the IR from OpenAPI documents.
fn build_documents(docs: &[Document]) -> Result<Api> {
    let mut builder = Builder {
        docs,
        schemas: BTreeMap::new(),
        ids: BTreeMap::new(),
        type_names: BTreeMap::new(),
        merges: Merges::default(),
        compiled: Compiled::default(),
        api: Api::default(),
    };
    builder.api.documents = docs.iter().map(|d| DocumentInfo { display_path: d.display_path.clone() }).collect();
    for (index, doc) in docs.iter().enumerate() {
        check_openapi(doc)?;
        if !doc.fills_gaps {
            builder.collect_schemas(index)?;
        }
    }
    builder.fill_gaps();
    builder.merge_notes();
    builder.declare_types()?;
    builder.assign_files();
    builder.convert_types()?;
    builder.check_defaults()?;
    cycles::box_recursive_fields(&mut builder.api, docs)?;
    for index in 0..docs.len() {
        builder.collect_operations(index)?;
    }
    builder.collect_resources();
    handlers::plan(&mut builder.api, docs);
    Ok(builder.api)
}

fn check_openapi(doc: &Document) -> Result<()> {
    match doc.value.get("openapi") {
        Some(Value::String(version)) if version.starts_with("3.") => Ok(()),
        Some(other) => Err(doc.error("/openapi", format!("unsupported OpenAPI version {other}; expected 3.x"))),
        None => Err(doc
            .error("", "neither an OpenAPI v3 document (there is no `openapi` field) nor a CustomResourceDefinition")),
    }
}

impl<'a> Builder<'a> {
    /// Adds the document's `components.schemas`, merging schemas that several documents repeat.
    fn collect_schemas(&mut self, doc: usize) -> Result<()> {
        let Some(schemas) = self.docs[doc].value.pointer("/components/schemas") else {
            return Ok(());
        };
        let Some(schemas) = schemas.as_object() else {
            return Err(self.docs[doc].error("/components/schemas", "must be an object"));
        };
        for (name, value) in schemas {
            let candidate = SchemaSource { doc, value };
            let Some(existing) = self.schemas.get(name.as_str()).copied() else {
                self.schemas.insert(name, candidate);
                continue;
            };
            if existing.value == value {
                continue;
            }
            let chosen = self.merge(name, existing, candidate)?;
            self.schemas.insert(name, chosen);
        }
        Ok(())
    }

    /// Adds the schemas of gap-filling documents that something refers to and no other
    /// document defines, and the ones those refer to.
    fn fill_gaps(&mut self) {
        let docs = self.docs;
        let roots = docs.iter().filter(|d| !d.fills_gaps).map(|d| &d.value);
        let fillers = || docs.iter().enumerate().filter(|(_, d)| d.fills_gaps);
        let found = missing_schemas(
            roots,
            |name| self.schemas.contains_key(name),
            |name| fillers().find_map(|(doc, d)| schema(&d.value, name).map(|value| (doc, value))),
        );
        for (name, doc, value) in found {
            self.schemas.insert(name, SchemaSource { doc, value });
        }
    }

    /// Chooses between two different definitions of one schema name: the one whose fields
    /// are a superset of the other's (a newer release adding optional fields), or, when both
    /// have the same fields, the first one. Notes are written by [`Builder::merge_notes`].
    fn merge(&mut self, name: &'a str, old: SchemaSource<'a>, new: SchemaSource<'a>) -> Result<SchemaSource<'a>> {
        let (old_fields, new_fields) = (field_names(old.value), field_names(new.value));
        if old_fields == new_fields {
            if old.value.get("type") != new.value.get("type") {
                return Err(self.conflict(name, old, new, "they have different types"));
            }
            if same_ignoring_docs(old.value, new.value, false) {
                self.merges.docs_only.insert(name);
            } else {
                self.merges.other.entry(name).or_insert((old.doc, new.doc));
            }
            return Ok(old);
        }
        let chosen = if new_fields.is_superset(&old_fields) {
            new
        } else if old_fields.is_superset(&new_fields) {
            old
        } else {
            return Err(self.conflict(name, old, new, "neither one's fields are a superset of the other's"));
        };
        self.merges.superset.insert(name);
        Ok(chosen)
    }

    /// Notes on the merges: one per schema (and set of added fields) whose field sets
    /// differ, one per schema that differs otherwise beyond its documentation, and one
    /// summary of the schemas that differ only in descriptions or extensions.
    fn merge_notes(&mut self) {
        let path = |doc: usize| self.docs[doc].display_path.display().to_string();
        let mut notes = Vec::new();
        for &name in &self.merges.superset {
            let chosen = self.schemas[&name];
            let chosen_fields = field_names(chosen.value);
            // Documents grouped by the fields the chosen definition adds to theirs.
            let mut groups: BTreeMap<Vec<&str>, Vec<String>> = BTreeMap::new();
            for (doc, document) in self.docs.iter().enumerate() {
                let Some(schema) =
                    document.value.get("components").and_then(|c| c.get("schemas")).and_then(|s| s.get(name))
                else {
                    continue;
                };
                let fields = field_names(schema);
                if fields != chosen_fields {
                    let added = chosen_fields.iter().filter(|f| !fields.contains(*f)).map(String::as_str).collect();
                    groups.entry(added).or_default().push(path(doc));
                }
            }
            for (added, others) in groups {
                let noun = if added.len() == 1 { "field" } else { "fields" };
                notes.push(format!(
                    "schema {name} differs between {chosen} and {others}; using the one from {chosen}, which adds the {noun} {added}",
                    chosen = path(chosen.doc),
                    others = others.join(", "),
                    added = added.join(", "),
                ));
            }
        }
        for (&name, &(first, second)) in &self.merges.other {
            if !self.merges.superset.contains(name) {
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
            .collect();
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
        self.api.notes.extend(notes);
    }

    fn conflict(&self, name: &str, old: SchemaSource, new: SchemaSource, why: &str) -> Error {
        let pointer = format!("/components/schemas/{}", escape_pointer_segment(name));
        self.docs[new.doc].error(
            &pointer,
            format!(
                "schema {name} is defined differently here and in {} and {why}",
                self.docs[old.doc].display_path.display()
            ),
        )
    }

    /// Reserves a type for every named schema (in name order) so references resolve before
    /// any body is converted.
    fn declare_types(&mut self) -> Result<()> {
        let mut taken: BTreeMap<(Vec<String>, String), &str> = BTreeMap::new();
        for (&name, source) in &self.schemas {
            let (module, type_name) = split_schema_name(name);
            if let Some(first) = taken.insert((module.clone(), type_name.clone()), name) {
                let pointer = format!("/components/schemas/{}", escape_pointer_segment(name));
                return Err(self.docs[source.doc].error(
                    &pointer,
                    format!(
                        "schemas {first} and {name} both map to the Rust type {}{type_name}",
                        module_prefix(&module)
                    ),
                ));
            }
            self.type_names.entry(module.clone()).or_default().insert(type_name.clone());
            self.ids.insert(name, self.api.types.len());
            let support = SUPPORT_SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s);
            self.api.types.push(TypeDef {
                schema_name: name.to_owned(),
                module,
                file: String::new(),
                name: type_name,
                doc: description(source.value),
                source: source.doc,
                kind: match support {
                    Some(support) => crate::ir::TypeKind::Support(support),
                    None => crate::ir::TypeKind::Alias(crate::ir::FieldType::plain(crate::ir::Ty::Value)),
                },
            });
        }
        Ok(())
    }

    /// Gives every named type a file (snake case of its name), unique within its module
    /// folder and distinct from its submodules. Inline types, created later, share their
    /// owner's file.
    fn assign_files(&mut self) {
        let mut submodules: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
        for ty in &self.api.types {
            for depth in 0..ty.module.len() {
                submodules.entry(ty.module[..depth].to_vec()).or_default().insert(ty.module[depth].clone());
            }
        }
        let mut taken: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
        for id in 0..self.api.types.len() {
            let ty = &self.api.types[id];
            let names = taken.entry(ty.module.clone()).or_insert_with(|| {
                let mut reserved = submodules.get(&ty.module).cloned().unwrap_or_default();
                reserved.insert("mod".to_owned());
                reserved
            });
            let file = naming::unique(snake_case(&ty.name), names, "_");
            self.api.types[id].file = file;
        }
    }
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

/// `io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler` -> (`[api, autoscaling, v2]`, `HorizontalPodAutoscaler`).
fn split_schema_name(name: &str) -> (Vec<String>, String) {
    let trimmed = name.strip_prefix(KUBERNETES_PREFIX).unwrap_or(name);
    let mut segments: Vec<&str> = trimmed.split('.').collect();
    let last = segments.pop().unwrap_or_default();
    let module = segments.iter().filter(|s| !s.is_empty()).map(|s| snake_case(s)).collect();
    (module, naming::type_name(last))
}

fn module_prefix(module: &[String]) -> String {
    module.iter().map(|m| format!("{m}::")).collect()
}

fn description(schema: &Value) -> Option<String> {
    schema.get("description").and_then(Value::as_str).map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned)
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

    /// Builds documents that each define the schema `io.k8s.Thing` as given.
    fn build_things(things: &[Value]) -> Result<Api> {
        let docs: Vec<Document> = things
            .iter()
            .enumerate()
            .flat_map(|(i, thing)| {
                let doc = json!({"openapi": "3.0.0", "components": {"schemas": {"io.k8s.Thing": thing}}});
                crate::load::parse(Path::new(&format!("specs/{i}.json")), doc.to_string()).unwrap()
            })
            .collect();
        build(&docs)
    }

    fn thing(fields: &[&str], description: &str) -> Value {
        let properties: serde_json::Map<String, Value> =
            fields.iter().map(|f| (f.to_string(), json!({"type": "string", "description": description}))).collect();
        json!({"type": "object", "description": description, "properties": properties})
    }

    #[test]
    fn a_superset_is_chosen_with_a_note_naming_the_added_fields() {
        let api = build_things(&[thing(&["a"], "old"), thing(&["a", "b", "c"], "new"), thing(&["a"], "old")]).unwrap();
        assert_eq!(
            api.notes,
            ["schema io.k8s.Thing differs between specs/1.json and specs/0.json, specs/2.json; \
              using the one from specs/1.json, which adds the fields b, c"]
        );
    }

    #[test]
    fn schemas_differing_only_in_documentation_are_counted_in_one_note() {
        let mut tagged = thing(&["a"], "two");
        tagged["x-kubernetes-group-version-kind"] = json!([{"group": "", "version": "v1", "kind": "Thing"}]);
        let api = build_things(&[thing(&["a"], "one"), tagged]).unwrap();
        assert_eq!(
            api.notes,
            ["1 schema differs between documents only in descriptions or extensions; \
              the first document's version is used: io.k8s.Thing"]
        );
        assert_eq!(api.types[0].doc.as_deref(), Some("one"));
    }

    #[test]
    fn same_fields_with_other_differences_get_a_note_of_their_own() {
        let mut formatted = thing(&["a"], "one");
        formatted["properties"]["a"]["format"] = json!("uuid");
        let api = build_things(&[thing(&["a"], "one"), formatted]).unwrap();
        assert_eq!(
            api.notes,
            ["schema io.k8s.Thing differs between specs/0.json and specs/1.json beyond descriptions and \
              extensions, with the same fields; using the one from specs/0.json"]
        );
    }

    #[test]
    fn neither_a_superset_is_an_error() {
        let error = build_things(&[thing(&["a"], ""), thing(&["b"], "")]).unwrap_err();
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
