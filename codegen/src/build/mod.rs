//! Builds the [`Api`] IR from loaded documents: every naming, merging and boxing decision
//! is made here, once.

mod cycles;
mod naming;
mod operations;
mod types;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::{Error, Result, escape_pointer_segment};
use crate::ir::{Api, DocumentInfo, SupportType, TypeDef, TypeId};
use crate::load::Document;

pub use naming::{pascal_case, snake_case};

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
    api: Api,
}

impl Builder<'_> {
    fn error(&self, loc: &Loc, message: impl Into<String>) -> Error {
        self.docs[loc.doc].error(&loc.pointer, message)
    }
}

/// Builds the IR from every document of the specs folder.
pub fn build(docs: &[Document]) -> Result<Api> {
    let mut builder = Builder { docs, schemas: BTreeMap::new(), ids: BTreeMap::new(), type_names: BTreeMap::new(), api: Api::default() };
    builder.api.documents =
        docs.iter().map(|d| DocumentInfo { display_path: d.display_path.clone() }).collect();
    for (index, doc) in docs.iter().enumerate() {
        check_openapi(doc)?;
        builder.collect_schemas(index)?;
    }
    builder.declare_types()?;
    builder.assign_files();
    builder.convert_types()?;
    cycles::box_recursive_fields(&mut builder.api, docs)?;
    for index in 0..docs.len() {
        builder.collect_operations(index)?;
    }
    builder.collect_resources();
    Ok(builder.api)
}

fn check_openapi(doc: &Document) -> Result<()> {
    match doc.value.get("openapi") {
        Some(Value::String(version)) if version.starts_with("3.") => Ok(()),
        Some(other) => Err(doc.error("/openapi", format!("unsupported OpenAPI version {other}; expected 3.x"))),
        None if doc.value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition") => {
            Err(doc.error("", "CustomResourceDefinition manifests are not supported yet"))
        }
        None => Err(doc.error("", "not an OpenAPI v3 document: there is no `openapi` field")),
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

    /// Chooses between two different definitions of one schema name: the one whose fields
    /// are a superset of the other's (a newer release adding optional fields).
    fn merge(&mut self, name: &str, old: SchemaSource<'a>, new: SchemaSource<'a>) -> Result<SchemaSource<'a>> {
        let fields = |s: SchemaSource| -> BTreeSet<String> {
            s.value.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
        };
        let (old_fields, new_fields) = (fields(old), fields(new));
        let path = |s: SchemaSource| self.docs[s.doc].display_path.display().to_string();
        let chosen = if old_fields == new_fields {
            if old.value.get("type") != new.value.get("type") {
                return Err(self.conflict(name, old, new, "they have different types"));
            }
            old
        } else if new_fields.is_superset(&old_fields) {
            new
        } else if old_fields.is_superset(&new_fields) {
            old
        } else {
            return Err(self.conflict(name, old, new, "neither one's fields are a superset of the other's"));
        };
        self.api.notes.push(format!(
            "schema {name} differs between {} and {}; using the one from {} (its fields include the other's)",
            path(old),
            path(new),
            path(chosen),
        ));
        Ok(chosen)
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
                    format!("schemas {first} and {name} both map to the Rust type {}{type_name}", module_prefix(&module)),
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
