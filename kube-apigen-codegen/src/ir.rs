//! The API as the emitters print it: types with their Rust names, fields with their wire
//! names and checks, resources with their operations, and the shared parameter, path and
//! response types.
//!
//! Every name and decision is made while building this ([`read_api`](crate::read_api));
//! emitters only print what is here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use kube_apigen_core::schema::{ListType, PatchType};
use kube_apigen_core::{Scope, Verb};
use kube_apigen_validation::meta::NameRule;
use serde_json::Value;

pub use crate::spec::{Bound, Gvk, HttpMethod, Keywords, PrinterColumn, Release, RuleText, ScalePaths};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// The id of the entry at `index`.
            ///
            /// # Panics
            ///
            /// When `index` does not fit in 32 bits.
            pub const fn new(index: usize) -> Self {
                assert!(index <= u32::MAX as usize, "fewer than 2^32 entries");
                Self(index as u32)
            }

            /// The entry's index in its list.
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

/// Everything the emitters print: the IR of one specs folder, as
/// [`read_api`](crate::read_api) builds it.
#[derive(Debug, Default)]
pub struct Api {
    /// Spec file of each document, as shown in headers, by document index.
    pub sources: Vec<PathBuf>,
    /// Every generated type: named schemas and the inline enums and objects they contain.
    pub types: Vec<TypeDef>,
    /// Every resource, by group, version and kind.
    pub resources: Vec<Resource>,
    /// Every group/version that serves a resource, by group and version.
    pub group_versions: Vec<GroupVersion>,
    /// The query-parameter structs of `params.rs`.
    pub param_sets: Vec<ParamSet>,
    /// The path-parameter structs of `params.rs`.
    pub path_sets: Vec<PathSet>,
    /// The response enums of `responses.rs`.
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
    /// The type with this id.
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }

    /// The resource with this id.
    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }

    /// The query-parameter set with this id.
    pub fn param_set(&self, id: ParamSetId) -> &ParamSet {
        &self.param_sets[id.index()]
    }

    /// The path-parameter set with this id.
    pub fn path_set(&self, id: PathSetId) -> &PathSet {
        &self.path_sets[id.index()]
    }

    /// The set of success codes with this id.
    pub fn response_set(&self, id: ResponseSetId) -> &ResponseSet {
        &self.response_sets[id.index()]
    }

    /// The type behind aliases.
    pub fn resolve<'t>(&'t self, ty: &'t Ty) -> &'t Ty {
        match ty {
            Ty::Named(id) => match &self.ty(*id).kind {
                TypeKind::Alias(target) => self.resolve(&target.ty),
                _ => ty,
            },
            _ => ty,
        }
    }

    /// The runtime's type behind `ty`, whether named by the spec (meta/v1 `Time`) or by a
    /// format (`date-time`), through aliases.
    pub fn runtime_type(&self, ty: &Ty) -> Option<RuntimeType> {
        match self.resolve(ty) {
            Ty::Runtime(runtime) => Some(*runtime),
            Ty::Named(id) => match self.ty(*id).kind {
                TypeKind::Runtime(runtime) => Some(runtime),
                _ => None,
            },
            _ => None,
        }
    }

    /// Readies the IR for models on k8s-openapi's types ([`Apimachinery::K8sOpenapi`]):
    /// its `Time` and `MicroTime` have no `Default`, so a required field of either is held
    /// as an `Option` that must be present, as k8s-openapi's own models hold it.
    pub fn hold_required_times_as_options(&mut self) {
        let is_time = |ty: &Ty| matches!(self.runtime_type(ty), Some(RuntimeType::Time | RuntimeType::MicroTime));
        let mut times = Vec::new();
        for (index, ty) in self.types.iter().enumerate() {
            let TypeKind::Struct(s) = &ty.kind else { continue };
            for (f, field) in s.fields.iter().enumerate() {
                if field.presence == Presence::Required && is_time(&field.ty.ty) {
                    times.push((index, f));
                }
            }
        }
        for (index, f) in times {
            if let TypeKind::Struct(s) = &mut self.types[index].kind {
                s.fields[f].presence = Presence::MustBePresent;
            }
        }
    }

    /// The type ids in order.
    pub fn type_ids(&self) -> impl Iterator<Item = TypeId> + use<> {
        (0..self.types.len()).map(TypeId::new)
    }

    /// Whether this type is k8s-openapi's under [`Apimachinery::K8sOpenapi`].
    pub fn from_k8s_openapi(&self, id: TypeId) -> bool {
        matches!(&self.ty(id).origin, Origin::Schema(name) if crate::runtime::from_k8s_openapi(name))
    }

    /// Whether the runtime's `apimachinery` module defines this type (a meta type, or a
    /// type declared inside one), so that a generated crate re-exports the runtime's
    /// instead of emitting its own ([`crate::runtime`]).
    pub fn defined_by_runtime(&self, mut id: TypeId) -> bool {
        loop {
            match &self.ty(id).origin {
                Origin::Schema(name) => return crate::runtime::defines(name),
                Origin::Inline { owner, .. } => id = *owner,
            }
        }
    }
}

/// A generated type: where it comes from, where it lives and what it is.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The schema it is generated from.
    pub origin: Origin,
    /// Rust module path below the crate root (`["api", "autoscaling", "v2"]`).
    pub module: Vec<String>,
    /// File stem inside the module folder; inline types share their owner's file.
    pub file: String,
    /// The Rust type name.
    pub name: String,
    /// The schema's `description`: the type's doc comment.
    pub doc: Option<String>,
    /// Index into [`Api::sources`] of the document the schema was taken from.
    pub source: usize,
    /// How its keyword errors are worded.
    pub wording: Wording,
    /// What Rust item it is.
    pub kind: TypeKind,
}

impl TypeDef {
    /// The name of the Go type behind it, which the API server's decode errors name: its
    /// schema name's last segment, or its Rust name for an inline type.
    pub fn go_name(&self) -> &str {
        match &self.origin {
            Origin::Schema(schema) => schema.rsplit('.').next().unwrap_or(schema),
            Origin::Inline { .. } => &self.name,
        }
    }
}

/// Where a type comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A named schema (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler`).
    Schema(String),
    /// A schema declared inside the schema of `owner`, at `pointer` in its document.
    Inline {
        /// The type whose schema declares this one, and whose file it shares.
        owner: TypeId,
        /// The JSON pointer of the schema in its document.
        pointer: String,
    },
}

/// How keyword errors read: as Kubernetes' built-in validation words them, or as the
/// API server's schema validator words them for custom resources
/// (`kube_apigen::rules::schema`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// As the built-in types' validation words them (`kube_apigen::rules`).
    BuiltIn,
    /// As the schema validator words them for custom resources (`kube_apigen::rules::schema`).
    SchemaValidator,
}

/// The Rust item a type is.
#[derive(Debug, Clone)]
pub enum TypeKind {
    /// An object with properties: a struct with its serde and validation code.
    Struct(Struct),
    /// A string enum: a Rust enum.
    Enum(StringEnum),
    /// `pub type Name = ty;`
    Alias(FieldType),
    /// A well-known schema implemented by the runtime and re-exported here.
    Runtime(RuntimeType),
}

/// A generated struct: its fields and the checks on the object as a whole.
#[derive(Debug, Clone)]
pub struct Struct {
    /// Never empty: a schema becomes a struct only when it has properties.
    pub fields: Vec<Field>,
    /// CEL rules (`x-kubernetes-validations`) on the object itself.
    pub rules: Vec<CelRule>,
    /// `minProperties` of the object.
    pub min_properties: Option<u64>,
    /// `maxProperties` of the object.
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
    /// The resource's scope, which decides whether `metadata.namespace` is allowed.
    pub scope: Scope,
    /// The rule `metadata.name` and `metadata.generateName` follow.
    pub name_rule: NameRule,
    /// The Rust names of ObjectMeta's fields the check reads (`name`, `generateName`,
    /// `namespace`, `labels`, `annotations`), where the spec's ObjectMeta has them.
    pub name: Option<String>,
    /// The Rust name of `generateName`.
    pub generate_name: Option<String>,
    /// The Rust name of `namespace`.
    pub namespace: Option<String>,
    /// The Rust name of `labels`.
    pub labels: Option<String>,
    /// The Rust name of `annotations`.
    pub annotations: Option<String>,
}

/// A field of a struct: one property of its schema.
#[derive(Debug, Clone)]
pub struct Field {
    /// The property name in JSON (and the serde name).
    pub wire_name: String,
    /// The Rust field name: snake case, unique within the struct.
    pub rust_name: String,
    /// Its type, with the checks its schema states.
    pub ty: FieldType,
    /// Whether it must be there, which decides `T` or `Option<T>`.
    pub presence: Presence,
    /// Stored as `Box<T>` to break a cycle of by-value containment.
    pub boxed: bool,
    /// The property's `description`, or else its type's: the field's doc comment.
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

/// A field's structural default (`default` in a custom resource's schema).
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
    /// The Rust type.
    pub ty: Ty,
    /// What is checked of a value there.
    pub checks: Checks,
}

impl FieldType {
    /// `ty` with no checks.
    pub fn plain(ty: Ty) -> Self {
        FieldType { ty, checks: Checks::default() }
    }
}

/// A Rust type at a schema position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// `boolean`: `bool`.
    Bool,
    /// `integer` of format `int32`: `i32`.
    I32,
    /// Any other `integer`: `i64`.
    I64,
    /// `number`: `f64`.
    F64,
    /// `string`: `String`.
    String,
    /// Any JSON: free-form objects, `RawExtension`, preserve-unknown-fields.
    Value,
    /// A type of the runtime's.
    Runtime(RuntimeType),
    /// A generated type.
    Named(TypeId),
    /// `array`: `Vec<T>`.
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

/// Where a generated crate's apimachinery types (`ObjectMeta`, `Time`, `Quantity`, ...)
/// come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Apimachinery {
    /// The runtime's own (`kube_apigen::apimachinery`, `kube_apigen::Time`, ...).
    #[default]
    Runtime,
    /// k8s-openapi's, so that the models are kube-rs resources: `ObjectMeta`,
    /// `OwnerReference`, `ManagedFieldsEntry`, `FieldsV1`, `LabelSelector` and its
    /// requirement, `Time`, `MicroTime`, `Quantity` and `IntOrString`. The runtime's
    /// `k8s-openapi` feature gives them the protobuf codecs and checks generated code calls.
    K8sOpenapi,
}

/// Types with special encodings that live in the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuntimeType {
    /// `intstr.IntOrString`, `x-kubernetes-int-or-string` and format `int-or-string`.
    IntOrString,
    /// `resource.Quantity`.
    Quantity,
    /// meta/v1 `Time`, and built-in APIs' strings of format `date-time`.
    Time,
    /// meta/v1 `MicroTime`.
    MicroTime,
    /// Built-in APIs' strings of format `byte`: bytes, base64 on the wire.
    Bytes,
    /// meta/v1 `Status`.
    Status,
    /// meta/v1 `StatusDetails`.
    StatusDetails,
    /// meta/v1 `StatusCause`.
    StatusCause,
    /// meta/v1 `ListMeta`.
    ListMeta,
}

impl RuntimeType {
    /// The path of k8s-openapi's type of the same schema, for the types a crate takes from
    /// k8s-openapi under [`Apimachinery::K8sOpenapi`]; `None` for the ones it keeps from
    /// the runtime (the errors, list metadata and bytes, which the server builds).
    pub fn k8s_openapi_path(self) -> Option<&'static str> {
        match self {
            RuntimeType::IntOrString => Some("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString"),
            RuntimeType::Quantity => Some("k8s_openapi::apimachinery::pkg::api::resource::Quantity"),
            RuntimeType::Time => Some("k8s_openapi::apimachinery::pkg::apis::meta::v1::Time"),
            RuntimeType::MicroTime => Some("k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime"),
            RuntimeType::Bytes
            | RuntimeType::Status
            | RuntimeType::StatusDetails
            | RuntimeType::StatusCause
            | RuntimeType::ListMeta => None,
        }
    }

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
    /// The known values, in the schema's order, without repeats.
    pub variants: Vec<EnumVariant>,
    /// Name of the catch-all variant holding values this version does not know.
    pub other_variant: String,
}

/// A known value of a string enum.
#[derive(Debug, Clone)]
pub struct EnumVariant {
    /// The value as sent.
    pub value: String,
    /// The variant name: Pascal case, unique within the enum.
    pub rust_name: String,
}

/// What a schema checks at one position: keywords and Kubernetes extensions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    /// Bounds, lengths, sizes, `pattern` and `uniqueItems`.
    pub keywords: Keywords,
    /// `format` of a custom resource's string, checked as the API server checks it (the
    /// string itself is kept as sent).
    pub format: Option<String>,
    /// Allowed values of a non-string enum (string enums become Rust enums).
    pub enum_values: Vec<Value>,
    /// `x-kubernetes-list-type` with its map keys: set and map lists reject duplicates.
    pub list_type: Option<ListType>,
    /// CEL rules (`x-kubernetes-validations`) on the value here.
    pub cel: Vec<CelRule>,
}

/// One entry of `x-kubernetes-validations`.
#[derive(Debug, Clone)]
pub struct CelRule {
    /// The rule as written, which generated code passes to the interpreter.
    pub text: RuleText,
    /// Whether the rule reads `oldSelf`, so runs only on updates (from the compiled
    /// rule's tree, as the runtime decides it).
    pub transition: bool,
    /// The rule as the runtime compiles it: its tree is what is translated to Rust.
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
    /// The struct of its objects.
    pub type_id: TypeId,
    /// Its group, version and kind.
    pub gvk: Gvk,
    /// The resource name in its paths (`horizontalpodautoscalers`).
    pub plural: String,
    /// The singular name discovery lists: `x-kubernetes-singular`, or the kind in lower case.
    pub singular: String,
    /// Namespaced when a path of it has `{namespace}`.
    pub scope: Scope,
    /// The kind of its lists (`HorizontalPodAutoscalerList`).
    pub list_kind: String,
    /// The rule `metadata.name` follows.
    pub name_rule: NameRule,
    /// Discovery's short names (`hpa`).
    pub short_names: Vec<String>,
    /// Discovery's categories (`all`).
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
    /// The trait's methods, one per operation (a single `watch` serves every watch).
    pub methods: Vec<Method>,
    /// Discovery verbs of the resource itself, sorted.
    pub verbs: Vec<&'static str>,
    /// Its subresources, by name.
    pub subresources: Vec<Subresource>,
}

/// A subresource as discovery lists it.
#[derive(Debug, Clone)]
pub struct Subresource {
    /// The path segment after the object's name (`status`, `scale`).
    pub name: String,
    /// Its discovery verbs, sorted.
    pub verbs: Vec<&'static str>,
    /// The kind it speaks when not the resource's own (`scale` speaks autoscaling/v1 Scale).
    pub other_kind: Option<Gvk>,
}

/// A group/version: its router, discovery entry and OpenAPI document.
#[derive(Debug, Clone)]
pub struct GroupVersion {
    /// The API group; empty for the core group.
    pub group: String,
    /// The version (`v2`).
    pub version: String,
    /// The module of its resource types, where its router lives.
    pub module: Vec<String>,
    /// The spec document served at `/openapi/v3/apis/<group>/<version>`.
    pub openapi: Value,
    /// Its resources, in [`Api::resources`] order.
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
    /// `POST` on the collection.
    Create,
    /// `GET` on an object or a subresource.
    Read,
    /// `PUT` on an object or a subresource.
    Replace,
    /// `PATCH` on an object or a subresource.
    Patch,
    /// `DELETE` on an object or a subresource.
    Delete,
    /// `GET` on the collection.
    List,
    /// `DELETE` on the collection.
    DeleteCollection,
    /// A watch: `?watch=true` on a list path, or a deprecated `/watch/` path.
    Watch,
}

impl Role {
    /// The Kubernetes verb of the operation; its name (`verb().as_str()`) is what
    /// discovery, authorization and 405 messages say, its variant what the dynamic
    /// adapter's requests carry.
    pub fn verb(self) -> Verb {
        match self {
            Role::Create => Verb::Create,
            Role::Read => Verb::Get,
            Role::Replace => Verb::Update,
            Role::Patch => Verb::Patch,
            Role::Delete => Verb::Delete,
            Role::List => Verb::List,
            Role::DeleteCollection => Verb::DeleteCollection,
            Role::Watch => Verb::Watch,
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
    /// The method name (`list`, `read_status`, `list_all_namespaces`); its handler is
    /// `handle_<name>`.
    pub name: String,
    /// What the operation does.
    pub role: Role,
    /// The subresource it acts on (`status`), if any.
    pub subresource: Option<String>,
    /// The struct of its path parameters, if it has any.
    pub path_set: Option<PathSetId>,
    /// The struct of its query parameters, if it has any.
    pub param_set: Option<ParamSetId>,
    /// The decoded body type (`None`: no body; patches carry `kube_apigen::http::Patch`).
    pub body: Option<Ty>,
    /// Patch types the operation accepts, in Kubernetes' order.
    pub patch_types: Vec<PatchType>,
    /// What a success answers with.
    pub success: Success,
    /// The body type of a success (of its first code); `None` when it has no body.
    pub response: Option<Ty>,
    /// The routes that reach it.
    pub routes: Vec<Route>,
    /// The operation's `description`: the method's doc comment.
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

/// An HTTP method and path that reach a trait method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The HTTP method.
    pub method: HttpMethod,
    /// The path as in the spec, which is also axum 0.8's syntax (`/x/{name}`).
    pub path: String,
    /// How the route reaches the method.
    pub kind: RouteKind,
    /// The axum handler serving it.
    pub handler: String,
}

/// How a route reaches its method.
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
    /// The struct name, after the roles that use it (`ListParams`, `CreateOrReplaceParams`).
    pub name: String,
    /// Its parameters, by wire name.
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

/// A query parameter: one field of its set's struct.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// The name in the query string.
    pub name: String,
    /// The Rust field name, unique within its set.
    pub rust_name: String,
    /// Its type, with its checks (a string enum stays a string, its values a check).
    pub ty: FieldType,
    /// The parameter's `description`: the field's doc comment.
    pub doc: Option<String>,
}

/// Path parameters shared by several operations: one Rust struct.
#[derive(Debug, Clone)]
pub struct PathSet {
    /// The struct name, after its parameters (`NamespaceNamePath`).
    pub name: String,
    /// Its parameters, in the order of the path.
    pub params: Vec<PathParam>,
}

impl PathSet {
    /// The Rust field of the path parameter with this name, if the set has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|p| p.name == name).map(|p| p.rust_name.as_str())
    }
}

/// A path parameter: one `String` field of its set's struct.
#[derive(Debug, Clone)]
pub struct PathParam {
    /// The name in the path (`name` for `{name}`).
    pub name: String,
    /// The Rust field name, unique within its set.
    pub rust_name: String,
}

/// The success status codes of an operation: one generic Rust enum.
#[derive(Debug, Clone)]
pub struct ResponseSet {
    /// The enum name, after its variants (`OkOrCreated`).
    pub name: String,
    /// One variant per code, in ascending order.
    pub variants: Vec<ResponseVariant>,
}

/// A success status code: one variant of its set's enum.
#[derive(Debug, Clone)]
pub struct ResponseVariant {
    /// The status code.
    pub code: u16,
    /// The variant name: the code's reason phrase (`Created`).
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

/// The protobuf message of a struct.
#[derive(Debug, Clone)]
pub struct ProtoMessage {
    /// The full protobuf name.
    pub name: String,
    /// Each field's number and label, in the order of [`Struct::fields`]; `None` for
    /// `apiVersion` and `kind`, which the envelope carries.
    pub fields: Vec<Option<ProtoField>>,
}

/// How a field is written in its struct's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtoField {
    /// The field number (within the embedded message when `embedded_in` is set).
    pub number: u32,
    /// Single, repeated or map.
    pub label: ProtoLabel,
    /// The number of the message field holding the field, when it belongs to a Go
    /// struct embedded in the struct's own: JSON inlines such fields (so the schema
    /// lists them with the struct's), protobuf nests them (`Volume.volumeSource`).
    pub embedded_in: Option<u32>,
}
