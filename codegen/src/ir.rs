//! The normalized API every emitter reads: types with their Rust names, fields with their
//! wire names and rules, resources and operations.
//!
//! All naming, deduplication and boxing is decided while building this (see `build`);
//! emitters only print what is here.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Index of a type in [`Api::types`].
pub type TypeId = usize;

#[derive(Debug, Default)]
pub struct Api {
    /// Spec documents in load order.
    pub documents: Vec<DocumentInfo>,
    /// Every generated type: named schemas and the inline enums and objects they contain.
    pub types: Vec<TypeDef>,
    pub resources: Vec<Resource>,
    pub operations: Vec<Operation>,
    /// Handler information derived from the operations.
    pub server: Server,
    /// Human-readable notes about decisions the user should know of (schema merges).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct DocumentInfo {
    pub display_path: PathBuf,
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The schema name (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler`); inline types get
    /// the owner's name followed by the JSON pointer of their schema relative to it.
    pub schema_name: String,
    /// Rust module path below the crate root (`["api", "autoscaling", "v2"]`).
    pub module: Vec<String>,
    /// File stem inside the module folder; inline types share their owner's file.
    pub file: String,
    /// The Rust type name.
    pub name: String,
    pub doc: Option<String>,
    /// Index into [`Api::documents`] of the document the schema was taken from.
    pub source: usize,
    pub kind: TypeKind,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    Struct(Struct),
    Enum(StringEnum),
    /// `pub type Name = ty;`
    Alias(FieldType),
    /// A well-known schema implemented by the support crate and re-exported here.
    Support(SupportType),
}

#[derive(Debug, Clone, Default)]
pub struct Struct {
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
    /// From a structural schema: see [`Rules::structural`].
    pub structural: bool,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub wire_name: String,
    pub rust_name: String,
    pub ty: FieldType,
    /// Required in Kubernetes' sense for built-in types: a plain `T`, and an empty string
    /// (Go's zero value) counts as missing.
    pub required: bool,
    /// Required in a structural schema (custom resources): the field must be present,
    /// whatever its value; the model keeps it an `Option` so absence can be told.
    pub must_be_present: bool,
    /// Stored as `Box<T>` to break a cycle of by-value containment.
    pub boxed: bool,
    pub doc: Option<String>,
}

/// A type together with the rules that apply at its position.
#[derive(Debug, Clone)]
pub struct FieldType {
    pub ty: Ty,
    pub rules: Rules,
}

impl FieldType {
    pub fn plain(ty: Ty) -> Self {
        FieldType { ty, rules: Rules::default() }
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
    Support(SupportType),
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

/// Types with special encodings that live in the support crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SupportType {
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

impl SupportType {
    /// The type's name in the support crate.
    pub fn name(self) -> &'static str {
        match self {
            SupportType::IntOrString => "IntOrString",
            SupportType::Quantity => "Quantity",
            SupportType::Time => "Time",
            SupportType::MicroTime => "MicroTime",
            SupportType::Bytes => "Bytes",
            SupportType::Status => "Status",
            SupportType::StatusDetails => "StatusDetails",
            SupportType::StatusCause => "StatusCause",
            SupportType::ListMeta => "ListMeta",
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

/// Validation rules a schema states at one position (keywords and Kubernetes extensions).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub format: Option<String>,
    /// Allowed values of a non-string enum (string enums become Rust enums).
    pub enum_values: Vec<serde_json::Value>,
    pub list_type: Option<ListType>,
    pub cel: Vec<CelRule>,
    pub nullable: bool,
    pub default: Option<serde_json::Value>,
    /// From a structural schema (a custom resource): keyword errors take the wording of
    /// the API server's schema validator (`support::rules::schema`).
    pub structural: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    Atomic,
    Set,
    Map { keys: Vec<String> },
}

/// One entry of `x-kubernetes-validations`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CelRule {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub field_path: Option<String>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

/// A top-level resource served at a collection path.
#[derive(Debug, Clone)]
pub struct Resource {
    pub type_id: TypeId,
    pub gvk: Gvk,
    pub plural: String,
    pub namespaced: bool,
    pub list_kind: String,
    /// Subresource names (`status`, `approval`, `scale`), sorted.
    pub subresources: Vec<String>,
    /// The rule `metadata.name` must follow.
    pub name_rule: NameRule,
}

/// The object-name rules Kubernetes uses (`support::meta::NameRule`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NameRule {
    #[default]
    Dns1123Subdomain,
    Dns1123Label,
    PathSegment,
}

#[derive(Debug, Clone)]
pub struct Operation {
    pub id: String,
    /// Lower-case HTTP method.
    pub method: String,
    pub path: String,
    /// `x-kubernetes-action`.
    pub action: Option<String>,
    pub gvk: Option<Gvk>,
    pub parameters: Vec<Parameter>,
    pub request_body: Option<Body>,
    /// Status code → response schema (`None` for responses without a body).
    pub responses: BTreeMap<u16, Option<Ty>>,
    pub doc: Option<String>,
    pub source: usize,
}

#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    pub location: ParameterLocation,
    pub required: bool,
    pub ty: FieldType,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParameterLocation {
    Path,
    Query,
    Header,
}

#[derive(Debug, Clone)]
pub struct Body {
    pub content_types: Vec<String>,
    pub ty: Option<Ty>,
    pub required: bool,
}

/// What the handler emitters need: per group/version, the resources with their methods,
/// and the parameter, path and response types those methods share.
#[derive(Debug, Default)]
pub struct Server {
    pub group_versions: Vec<GroupVersion>,
    pub resources: Vec<ResourceApi>,
    pub param_sets: Vec<ParamSet>,
    pub path_sets: Vec<PathSet>,
    pub response_sets: Vec<ResponseSet>,
    /// `major.minor` of the Kubernetes release the specs follow (`info.x-kubernetes-release`).
    pub release: Option<String>,
}

#[derive(Debug, Clone)]
pub struct GroupVersion {
    pub group: String,
    pub version: String,
    /// The module of its resource types, where its router lives.
    pub module: Vec<String>,
    /// The spec document served at `/openapi/v3/apis/<group>/<version>`, as JSON.
    pub openapi: String,
    /// Indexes into [`Server::resources`].
    pub resources: Vec<usize>,
}

/// One resource's trait and router.
#[derive(Debug, Clone)]
pub struct ResourceApi {
    /// Index into [`Api::resources`].
    pub resource: usize,
    pub trait_name: String,
    /// File of the trait and its handlers, in the resource type's module.
    pub file: String,
    /// Name of the `static` describing the resource (`HORIZONTAL_POD_AUTOSCALER`).
    pub info_static: String,
    pub singular: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Table columns after Name (`x-kubernetes-printer-columns`).
    pub columns: Vec<PrinterColumn>,
    /// The scale subresource's paths (`x-kubernetes-scale`).
    pub scale: Option<ScalePaths>,
    /// The warning of a deprecated version (`x-kubernetes-deprecation-warning`).
    pub deprecation_warning: Option<String>,
    /// `x-kubernetes-storage-version`; true when not stated.
    pub storage_version: bool,
    pub methods: Vec<Method>,
    /// Discovery verbs of the resource and of each subresource.
    pub verbs: Vec<String>,
    pub subresource_verbs: Vec<(String, Vec<String>)>,
}

/// Where a resource keeps what its `scale` subresource shows: JSON paths such as `.spec.replicas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

/// A column of the resource's Table, in the shape of a CRD's `additionalPrinterColumns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    pub name: String,
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i32,
    pub json_path: String,
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
}

/// A trait method and the routes that reach it.
#[derive(Debug, Clone)]
pub struct Method {
    pub name: String,
    pub role: Role,
    pub subresource: Option<String>,
    /// Whether the method lists across all namespaces (no namespace in its path).
    pub all_namespaces: bool,
    pub path_set: Option<usize>,
    pub param_set: Option<usize>,
    /// The decoded body type (`None`: no body; patches carry `support::http::Patch`).
    pub body: Option<Ty>,
    /// Patch content types the operation accepts.
    pub patch_types: Vec<String>,
    /// The success response: its status code (the first the spec lists), the set of codes
    /// when there are several, and the body type.
    pub success_code: u16,
    pub response_set: Option<usize>,
    pub response: Option<Ty>,
    pub routes: Vec<Route>,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Upper-case HTTP method.
    pub method: String,
    /// The path as in the spec, which is also axum 0.8's syntax (`/x/{name}`).
    pub path: String,
    pub kind: RouteKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// The operation itself.
    Direct,
    /// A list path: `?watch=true` turns it into a watch.
    ListOrWatch,
    /// A deprecated `/watch/` path.
    WatchPath,
    /// A deprecated `/watch/.../{name}` path: a watch of one object.
    WatchOne,
}

/// Query parameters shared by several operations: one Rust struct.
#[derive(Debug, Clone)]
pub struct ParamSet {
    pub name: String,
    pub params: Vec<Parameter>,
}

/// Path parameters shared by several operations: one Rust struct.
#[derive(Debug, Clone)]
pub struct PathSet {
    pub name: String,
    pub params: Vec<String>,
}

/// The success status codes of an operation: one generic Rust enum.
#[derive(Debug, Clone)]
pub struct ResponseSet {
    pub name: String,
    pub codes: Vec<u16>,
}
