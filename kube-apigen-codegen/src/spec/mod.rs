//! The specs as typed values.
//!
//! [`Spec::read`] turns the loaded documents into the API they define:
//! CustomResourceDefinition manifests become the OpenAPI documents the API server
//! publishes for them ([`crd`]); schemas that several documents define are merged
//! ([`merge`]); schemas only the generator's built-in document defines fill the gaps;
//! then every schema, operation and Kubernetes extension is read into the types of
//! [`schema`], [`operation`] and [`k8s`], each value checked. An error names the file,
//! line and column and the JSON pointer of the value. Nothing after this stage reads raw
//! JSON, except to copy documents as they are served.

pub mod crd;
pub mod k8s;
mod merge;
pub mod operation;
pub mod proto;
mod reader;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::{Error, Result, escape_pointer_segment, push_pointer_segment};
use crate::load;

pub use k8s::{Gvk, PrinterColumn, Release, ResourceExtensions, RuleText, ScalePaths, ValidationRule};
pub use operation::{Action, HttpMethod, Operation, ParameterLocation};
pub use schema::{AdditionalProperties, Bound, Keywords, Schema, SchemaType};

/// Index of a document in [`Spec::documents`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocId(u32);

impl DocId {
    pub fn new(index: usize) -> DocId {
        DocId(u32::try_from(index).expect("fewer than 2^32 documents"))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a value of a spec is: its document and its JSON pointer there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub doc: DocId,
    pub pointer: String,
}

impl Loc {
    pub fn new(doc: DocId, pointer: impl Into<String>) -> Loc {
        Loc { doc, pointer: pointer.into() }
    }

    /// The location of a named schema (`components.schemas.<name>`).
    pub fn component(doc: DocId, name: &str) -> Loc {
        Loc::new(doc, format!("/components/schemas/{}", escape_pointer_segment(name)))
    }

    /// The location of a member or item of the value here.
    pub fn join(&self, segment: &str) -> Loc {
        // Locations are joined for every value read: one allocation each.
        let mut pointer = String::with_capacity(self.pointer.len() + 1 + segment.len());
        pointer.push_str(&self.pointer);
        pointer.push('/');
        push_pointer_segment(&mut pointer, segment);
        Loc { doc: self.doc, pointer }
    }
}

/// Where a document comes from, which decides the rules its schemas follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An OpenAPI document as Kubernetes publishes it for built-in APIs.
    OpenApi,
    /// Written from a CustomResourceDefinition: its schemas are structural (defaults
    /// apply on decode, `required` asks for presence, errors are worded as the API
    /// server's schema validator words them).
    CustomResource,
    /// The generator's built-in document: its schemas only fill gaps, where no other
    /// document defines a schema something refers to.
    BuiltIn,
}

/// One OpenAPI document: as loaded (for errors and serving) and where it comes from.
#[derive(Debug, Clone)]
pub struct Document {
    pub raw: load::Document,
    pub origin: Origin,
}

/// The API the specs define.
#[derive(Debug)]
pub struct Spec {
    pub documents: Vec<Document>,
    /// Every named schema something may use, by name: each document's
    /// `components.schemas`, merged where several define one, and the built-in schemas
    /// something refers to.
    pub schemas: BTreeMap<String, Schema>,
    pub operations: Vec<Operation>,
    /// `info.x-kubernetes-release` of the first document stating one.
    pub release: Option<Release>,
    /// Decisions the user should know of, such as schemas merged across documents.
    pub notes: Vec<String>,
    /// The versions CustomResourceDefinitions list without serving them.
    pub unserved: Vec<Gvk>,
}

impl Spec {
    /// Reads the documents of a specs folder.
    pub fn read(files: Vec<load::Document>) -> Result<Spec> {
        let (documents, unserved) = crd::expand(files)?;
        for document in &documents {
            check_openapi(&document.raw)?;
        }
        let (schemas, operations, release, notes) = {
            let merged = merge::merge(&documents)?;
            let reader = reader::Reader::new(&documents, merged.chosen.keys().map(|name| name.as_str()).collect());
            let mut schemas = BTreeMap::new();
            for (name, (doc, value)) in &merged.chosen {
                schemas.insert(name.clone(), reader.schema(value, &Loc::component(*doc, name))?);
            }
            let mut operations = Vec::new();
            let mut release = None;
            for (index, document) in documents.iter().enumerate() {
                let doc = DocId::new(index);
                operations.extend(reader.operations(&document.raw.value, doc)?);
                if release.is_none() {
                    release = reader.release(&document.raw.value, doc)?;
                }
            }
            (schemas, operations, release, merged.notes)
        };
        Ok(Spec { documents, schemas, operations, release, notes, unserved })
    }

    /// An error at `loc`, with its file, line and column.
    pub fn error(&self, loc: &Loc, message: impl Into<String>) -> Error {
        self.documents[loc.doc.index()].raw.error(&loc.pointer, message)
    }

    pub fn document(&self, doc: DocId) -> &Document {
        &self.documents[doc.index()]
    }

    /// The document served for a group/version: the paths and schemas of the documents
    /// its resources come from, with the schemas they refer to that only other documents
    /// define (a custom resource's document refers to the shared meta/v1 types).
    pub fn served_document(&self, sources: &BTreeSet<DocId>) -> Value {
        merge::served_document(&self.documents, sources)
    }
}

fn check_openapi(doc: &load::Document) -> Result<()> {
    match doc.value.get("openapi") {
        Some(Value::String(version)) if version.starts_with("3.") => Ok(()),
        Some(other) => Err(doc.error("/openapi", format!("unsupported OpenAPI version {other}; expected 3.x"))),
        None => Err(doc
            .error("", "neither an OpenAPI v3 document (there is no `openapi` field) nor a CustomResourceDefinition")),
    }
}
