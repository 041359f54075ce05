//! The API as the emitters print it: types with their Rust names, fields with their wire
//! names and checks, resources with their operations, and the shared parameter, path and
//! response types.
//!
//! Every name and decision is made while building this (see `build`); emitters only
//! print what is here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use kube_apigen_core::Scope;
use kube_apigen_core::schema::{ListType, PatchType};
use kube_apigen_validation::meta::NameRule;
use serde_json::Value;

pub use crate::spec::{Bound, Gvk, HttpMethod, Keywords, PrinterColumn, Release, RuleText, ScalePaths};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            pub const fn new(index: usize) -> Self {
                assert!(index <= u32::MAX as usize, "fewer than 2^32 entries");
                Self(index as u32)
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// Index of a type in [`Api::types`].
    TypeId
);
id!(
    /// Index of a resource in [`Api::resources`].
    ResourceId
);
id!(
    /// Index of a query-parameter set in [`Api::param_sets`].
    ParamSetId
);
id!(
    /// Index of a path-parameter set in [`Api::path_sets`].
    PathSetId
);
id!(
    /// Index of a set of success codes in [`Api::response_sets`].
    ResponseSetId
);

#[derive(Debug, Default)]
pub struct Api {
    /// Spec file of each document, as shown in headers, by document index.
    pub sources: Vec<PathBuf>,
    /// Every generated type: named schemas and the inline enums and objects they contain.
    pub types: Vec<TypeDef>,
    pub resources: Vec<Resource>,
    pub group_versions: Vec<GroupVersion>,
    pub param_sets: Vec<ParamSet>,
    pub path_sets: Vec<PathSet>,
    pub response_sets: Vec<ResponseSet>,
    /// The release reported at `/version`.
    pub release: Release,
    /// How many operations the specs define (for the summary).
    pub operations: usize,
    /// Decisions the user should know of (schema merges, paths left unserved).
    pub notes: Vec<String>,
    /// The protobuf codecs.
    pub protobuf: Protobuf,
}

impl Api {
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }

    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }

    pub fn param_set(&self, id: ParamSetId) -> &ParamSet {
        &self.param_sets[id.index()]
    }

    pub fn path_set(&self, id: PathSetId) -> &PathSet {
        &self.path_sets[id.index()]
    }

    pub fn response_set(&self, id: ResponseSetId) -> &ResponseSet {
        &self.response_sets[id.index()]
    }

    /// The type ids in order.
    pub fn type_ids(&self) -> impl Iterator<Item = TypeId> + use<> {
        (0..self.types.len()).map(TypeId::new)
    }
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    pub origin: Origin,
    /// Rust module path below the crate root (`["api", "autoscaling", "v2"]`).
    pub module: Vec<String>,
    /// File stem inside the module folder; inline types share their owner's file.
    pub file: String,
    /// The Rust type name.
    pub name: String,
    pub doc: Option<String>,
    /// Index into [`Api::sources`] of the document the schema was taken from.
    pub source: usize,
    /// How its keyword errors are worded.
    pub wording: Wording,
    pub kind: TypeKind,
}

/// Where a type comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A named schema (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler`).
    Schema(String),
    /// A schema declared inside the schema of `owner`, at `pointer` in its document.
    Inline { owner: TypeId, pointer: String },
}

/// How keyword errors read: as Kubernetes' built-in validation words them, or as the
/// API server's schema validator words them for custom resources
/// (`kube_apigen::rules::schema`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    BuiltIn,
    SchemaValidator,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    Struct(Struct),
    Enum(StringEnum),
    /// `pub type Name = ty;`
    Alias(FieldType),
    /// A well-known schema implemented by the runtime and re-exported here.
    Runtime(RuntimeType),
}

#[derive(Debug, Clone)]
pub struct Struct {
    /// Never empty: a schema becomes a struct only when it has properties.
    pub fields: Vec<Field>,
    /// CEL rules (`x-kubernetes-validations`) on the object itself.
    pub rules: Vec<CelRule>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    /// `x-kubernetes-group-version-kind` of the schema.
    pub gvks: Vec<Gvk>,
    /// `x-kubernetes-preserve-unknown-fields` beside declared properties: the Rust name of
    /// the map keeping the undeclared fields, as sent.
    pub unknown_fields: Option<String>,
    /// The resource this struct is the object of.
    pub resource: Option<ResourceId>,
    /// How the object's `metadata` is checked, for resources whose metadata is ObjectMeta.
    pub object_meta: Option<ObjectMetaUse>,
}

impl Struct {
    /// Whether a field has a spec default (the struct then implements `Default` with them).
    pub fn has_defaults(&self) -> bool {
        self.fields.iter().any(|f| f.default.is_some())
    }
}

/// A resource's `metadata` field, checked against the object-meta conventions.
#[derive(Debug, Clone)]
pub struct ObjectMetaUse {
    /// Index of the field in [`Struct::fields`].
    pub field: usize,
    pub scope: Scope,
    pub name_rule: NameRule,
    /// The Rust names of ObjectMeta's fields the check reads (`name`, `generateName`,
    /// `namespace`, `labels`, `annotations`), where the spec's ObjectMeta has them.
    pub name: Option<String>,
    pub generate_name: Option<String>,
    pub namespace: Option<String>,
    pub labels: Option<String>,
    pub annotations: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub wire_name: String,
    pub rust_name: String,
    pub ty: FieldType,
    pub presence: Presence,
    /// Stored as `Box<T>` to break a cycle of by-value containment.
    pub boxed: bool,
    pub doc: Option<String>,
    /// The schema's `nullable`.
    pub nullable: bool,
    /// A structural default, applied when decoding lacks the field (and to `null`,
    /// unless the field is nullable).
    pub default: Option<SpecDefault>,
}

/// Whether a field must be there, and what that means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// `Option<T>`, skipped when `None`.
    Optional,
    /// Required in Kubernetes' sense for built-in types: a plain `T`; an empty string
    /// (Go's zero value) counts as missing.
    Required,
    /// Required in a structural schema (custom resources): the field must be present,
    /// whatever its value; the model keeps it an `Option` so absence can be told.
    MustBePresent,
}

impl Presence {
    /// Whether the model holds the field as `Option<T>`.
    pub fn is_option(self) -> bool {
        self != Presence::Required
    }
}

#[derive(Debug, Clone)]
pub struct SpecDefault {
    /// The value, checked to fit the field's type.
    pub value: Value,
    /// The function giving it.
    pub function: String,
    /// Whether decoding `null` gives the default too.
    pub null_takes_default: bool,
}

/// A type together with the checks that apply at its position. Two positions have the
/// same type when their types are the same, whatever they check.
#[derive(Debug, Clone)]
pub struct FieldType {
    pub ty: Ty,
    pub checks: Checks,
}

impl FieldType {
    pub fn plain(ty: Ty) -> Self {
        FieldType { ty, checks: Checks::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Bool,
    I32,
    I64,
    F64,
    String,
    /// Any JSON: free-form objects, `RawExtension`, preserve-unknown-fields.
    Value,
    Runtime(RuntimeType),
    Named(TypeId),
    Vec(Box<FieldType>),
    /// `additionalProperties`: `BTreeMap<String, T>`.
    Map(Box<FieldType>),
}

impl PartialEq for FieldType {
    fn eq(&self, other: &Self) -> bool {
        self.ty == other.ty
    }
}
impl Eq for FieldType {}

/// Types with special encodings that live in the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuntimeType {
    IntOrString,
    Quantity,
    Time,
    MicroTime,
    Bytes,
    Status,
    StatusDetails,
    StatusCause,
    ListMeta,
}

impl RuntimeType {
    /// The type's name in the runtime.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeType::IntOrString => "IntOrString",
            RuntimeType::Quantity => "Quantity",
            RuntimeType::Time => "Time",
            RuntimeType::MicroTime => "MicroTime",
            RuntimeType::Bytes => "Bytes",
            RuntimeType::Status => "Status",
            RuntimeType::StatusDetails => "StatusDetails",
            RuntimeType::StatusCause => "StatusCause",
            RuntimeType::ListMeta => "ListMeta",
        }
    }
}

/// A string enum; unknown values survive decoding in a catch-all variant.
#[derive(Debug, Clone)]
pub struct StringEnum {
    pub variants: Vec<EnumVariant>,
    /// Name of the catch-all variant holding values this version does not know.
    pub other_variant: String,
}

#[derive(Debug, Clone)]
pub struct EnumVariant {
    pub value: String,
    pub rust_name: String,
}

/// What a schema checks at one position: keywords and Kubernetes extensions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    pub keywords: Keywords,
    /// `format` of a custom resource's string, checked as the API server checks it (the
    /// string itself is kept as sent).
    pub format: Option<String>,
    /// Allowed values of a non-string enum (string enums become Rust enums).
    pub enum_values: Vec<Value>,
    pub list_type: Option<ListType>,
    pub cel: Vec<CelRule>,
}

/// One entry of `x-kubernetes-validations`.
#[derive(Debug, Clone)]
pub struct CelRule {
    pub text: RuleText,
    /// Whether the rule reads `oldSelf`, so runs only on updates (from the compiled
    /// rule's tree, as the runtime decides it).
    pub transition: bool,
    pub compiled: Arc<kube_apigen_validation::cel::CelRule>,
}

impl PartialEq for CelRule {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// A top-level resource served at a collection path, with its trait and routes.
#[derive(Debug, Clone)]
pub struct Resource {
    pub type_id: TypeId,
    pub gvk: Gvk,
    pub plural: String,
    pub singular: String,
    pub scope: Scope,
    pub list_kind: String,
    /// The rule `metadata.name` follows.
    pub name_rule: NameRule,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Table columns after Name.
    pub columns: Vec<PrinterColumn>,
    /// The scale subresource's paths.
    pub scale: Option<ScalePaths>,
    /// The warning of a deprecated version.
    pub deprecation_warning: Option<String>,
    /// Whether objects are stored in this version.
    pub storage_version: bool,
    /// The trait of its operations.
    pub trait_name: String,
    /// File of the trait and its handlers, in the resource type's module.
    pub file: String,
    /// Name of the `static` describing the resource (`HORIZONTAL_POD_AUTOSCALER`).
    pub info_static: String,
    pub methods: Vec<Method>,
    /// Discovery verbs of the resource and of each subresource, sorted.
    pub verbs: Vec<&'static str>,
    pub subresources: Vec<Subresource>,
}

/// A subresource as discovery lists it.
#[derive(Debug, Clone)]
pub struct Subresource {
    pub name: String,
    pub verbs: Vec<&'static str>,
    /// The kind it speaks when not the resource's own (`scale` speaks autoscaling/v1 Scale).
    pub other_kind: Option<Gvk>,
}

/// A group/version: its router, discovery entry and OpenAPI document.
#[derive(Debug, Clone)]
pub struct GroupVersion {
    pub group: String,
    pub version: String,
    /// The module of its resource types, where its router lives.
    pub module: Vec<String>,
    /// The spec document served at `/openapi/v3/apis/<group>/<version>`.
    pub openapi: Value,
    pub resources: Vec<ResourceId>,
}

impl GroupVersion {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

/// What an operation does, which decides the handler's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Create,
    Read,
    Replace,
    Patch,
    Delete,
    List,
    DeleteCollection,
    Watch,
}

impl Role {
    /// The Kubernetes verb (discovery, authorization, 405 messages).
    pub fn verb(self) -> &'static str {
        match self {
            Role::Create => "create",
            Role::Read => "get",
            Role::Replace => "update",
            Role::Patch => "patch",
            Role::Delete => "delete",
            Role::List => "list",
            Role::DeleteCollection => "deletecollection",
            Role::Watch => "watch",
        }
    }

    /// The variant of `kube_apigen::dynamic::Verb`.
    pub fn dynamic_verb(self) -> &'static str {
        match self {
            Role::Create => "Create",
            Role::Read => "Get",
            Role::Replace => "Update",
            Role::Patch => "Patch",
            Role::Delete => "Delete",
            Role::List => "List",
            Role::DeleteCollection => "DeleteCollection",
            Role::Watch => "Watch",
        }
    }

    /// The word naming the parameter sets it uses (`ListParams`, `CreateOrReplaceParams`):
    /// a watch takes a list's parameters.
    pub fn set_name(self) -> &'static str {
        match self {
            Role::Create => "Create",
            Role::Read => "Read",
            Role::Replace => "Replace",
            Role::Patch => "Patch",
            Role::Delete => "Delete",
            Role::List | Role::Watch => "List",
            Role::DeleteCollection => "DeleteCollection",
        }
    }

    /// The options kind Kubernetes names when query parameters are invalid.
    pub fn options_kind(self) -> &'static str {
        match self {
            Role::Create => "CreateOptions",
            Role::Read => "GetOptions",
            Role::Replace => "UpdateOptions",
            Role::Patch => "PatchOptions",
            Role::Delete => "DeleteOptions",
            Role::List | Role::DeleteCollection | Role::Watch => "ListOptions",
        }
    }
}

/// A trait method and the routes that reach it.
#[derive(Debug, Clone)]
pub struct Method {
    pub name: String,
    pub role: Role,
    pub subresource: Option<String>,
    pub path_set: Option<PathSetId>,
    pub param_set: Option<ParamSetId>,
    /// The decoded body type (`None`: no body; patches carry `kube_apigen::http::Patch`).
    pub body: Option<Ty>,
    /// Patch types the operation accepts, in Kubernetes' order.
    pub patch_types: Vec<PatchType>,
    /// What a success answers with.
    pub success: Success,
    pub response: Option<Ty>,
    pub routes: Vec<Route>,
    pub doc: Option<String>,
}

/// The status code of a successful answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Success {
    /// Always this code.
    Code(u16),
    /// One of the codes of the set, chosen by the implementation.
    OneOf(ResponseSetId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub method: HttpMethod,
    /// The path as in the spec, which is also axum 0.8's syntax (`/x/{name}`).
    pub path: String,
    pub kind: RouteKind,
    /// The axum handler serving it.
    pub handler: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// The operation itself.
    Direct,
    /// A list path: `?watch=true` turns it into a watch.
    ListOrWatch,
    /// A deprecated `/watch/` path of a collection.
    WatchPath,
    /// A deprecated `/watch/.../{name}` path: a watch of one object.
    WatchOne,
}

impl RouteKind {
    /// Whether the route's path has parameters its handler reads (a deprecated watch path
    /// of a namespace or an object).
    pub fn is_watch(self) -> bool {
        matches!(self, RouteKind::WatchPath | RouteKind::WatchOne)
    }
}

/// Query parameters shared by several operations: one Rust struct.
#[derive(Debug, Clone)]
pub struct ParamSet {
    pub name: String,
    pub params: Vec<Parameter>,
    /// The parameters `kube_apigen::dynamic::Options` carries: index into `params`, and the
    /// field of `Options`.
    pub dynamic_options: Vec<(usize, &'static str)>,
}

impl ParamSet {
    /// The Rust field of the parameter with this wire name, if the set has it.
    pub fn field(&self, wire_name: &str) -> Option<&str> {
        self.params.iter().find(|p| p.name == wire_name).map(|p| p.rust_name.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    /// Unique within its set.
    pub rust_name: String,
    pub ty: FieldType,
    pub doc: Option<String>,
}

/// Path parameters shared by several operations: one Rust struct.
#[derive(Debug, Clone)]
pub struct PathSet {
    pub name: String,
    pub params: Vec<PathParam>,
}

impl PathSet {
    /// The Rust field of the path parameter with this name, if the set has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|p| p.name == name).map(|p| p.rust_name.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct PathParam {
    pub name: String,
    pub rust_name: String,
}

/// The success status codes of an operation: one generic Rust enum.
#[derive(Debug, Clone)]
pub struct ResponseSet {
    pub name: String,
    pub variants: Vec<ResponseVariant>,
}

#[derive(Debug, Clone)]
pub struct ResponseVariant {
    pub code: u16,
    pub name: String,
}

pub use crate::spec::proto::Label as ProtoLabel;

/// Which types have a protobuf codec, and how each of their fields is written.
#[derive(Debug, Default)]
pub struct Protobuf {
    /// Structs with a message whose fields all match theirs (and whose field types all
    /// have codecs).
    pub messages: BTreeMap<TypeId, ProtoMessage>,
    /// String enums some struct with a message holds.
    pub enums: BTreeSet<TypeId>,
    /// Structs that are request or response bodies (they say whether they have a codec).
    pub payloads: BTreeSet<TypeId>,
}

#[derive(Debug, Clone)]
pub struct ProtoMessage {
    /// The full protobuf name.
    pub name: String,
    /// Each field's number and label, in the order of [`Struct::fields`]; `None` for
    /// `apiVersion` and `kind`, which the envelope carries.
    pub fields: Vec<Option<ProtoField>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtoField {
    pub number: u32,
    pub label: ProtoLabel,
}
