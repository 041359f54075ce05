//! Builds the [`Api`] IR from the typed spec: every naming, boxing and handler decision
//! is made here, once. The builders read only the spec model, and name things only
//! through [`crate::naming`].

mod builtin_kinds;
mod cycles;
mod defaults;
mod paths;
mod plan;
mod protobuf;
mod resources;
mod types;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::ir::{Api, FieldType, Origin as TypeOrigin, RuntimeType, Ty, TypeDef, TypeId, TypeKind, Wording};
use crate::naming;
use crate::spec::proto::Protos;
use crate::spec::{Loc, Origin, Spec};

/// Well-known schemas that the runtime implements by hand, because their wire
/// encoding is special or the runtime itself needs them (every error is a `Status`).
const RUNTIME_SCHEMAS: &[(&str, RuntimeType)] = &[
    ("io.k8s.apimachinery.pkg.api.resource.Quantity", RuntimeType::Quantity),
    ("io.k8s.apimachinery.pkg.util.intstr.IntOrString", RuntimeType::IntOrString),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", RuntimeType::Time),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", RuntimeType::MicroTime),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Status", RuntimeType::Status),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails", RuntimeType::StatusDetails),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause", RuntimeType::StatusCause),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", RuntimeType::ListMeta),
];

/// Whether the runtime implements the schema `name` by hand (a [`RuntimeType`]).
pub(crate) fn is_runtime_schema(name: &str) -> bool {
    RUNTIME_SCHEMAS.iter().any(|(runtime, _)| *runtime == name)
}

/// The schema whose fields resources' `metadata` is checked against.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The prefix every Kubernetes schema name starts with; it adds nothing to module paths.
const KUBERNETES_PREFIX: &str = "io.k8s.";

/// Builds the IR of a spec and its `.proto` files.
pub fn build(spec: &Spec, protos: &Protos) -> Result<Api> {
    let mut builder =
        Builder { spec, ids: BTreeMap::new(), type_names: BTreeMap::new(), defaults: Vec::new(), api: Api::default() };
    builder.api.sources = spec.documents.iter().map(|d| d.raw.display_path.clone()).collect();
    builder.api.notes.clone_from(&spec.notes);
    builder.api.operations = spec.operations.len();
    builder.declare_types()?;
    builder.assign_files();
    builder.convert_types()?;
    builder.check_defaults()?;
    cycles::box_recursive_fields(&mut builder.api, spec)?;
    builder.match_protobuf(protos)?;
    builder.collect_resources()?;
    builder.plan();
    builder.collect_payloads();
    Ok(builder.api)
}

struct Builder<'s> {
    spec: &'s Spec,
    /// The type of each named schema.
    ids: BTreeMap<&'s str, TypeId>,
    /// Type names taken in each module, so inline types get unique names.
    type_names: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// Fields with a structural default, checked once every type is known: the type,
    /// the field's index, where the default is written and its value.
    defaults: Vec<(TypeId, usize, Loc, serde_json::Value)>,
    api: Api,
}

impl<'s> Builder<'s> {
    fn error(&self, loc: &Loc, message: impl Into<String>) -> Error {
        self.spec.error(loc, message)
    }

    fn ty(&self, id: TypeId) -> &TypeDef {
        self.api.ty(id)
    }

    /// How keyword errors read for a schema at `loc`: custom resources' schemas follow
    /// the API server's schema validator; parameters of their documents do not.
    fn wording(&self, loc: &Loc) -> Wording {
        let custom_resource = self.spec.document(loc.doc).origin == Origin::CustomResource;
        if custom_resource && loc.pointer.starts_with("/components/schemas/") {
            Wording::SchemaValidator
        } else {
            Wording::BuiltIn
        }
    }

    /// Reserves a type for every named schema (in name order) so references resolve before
    /// any body is converted.
    fn declare_types(&mut self) -> Result<()> {
        let mut taken: BTreeMap<(Vec<String>, String), &str> = BTreeMap::new();
        for (name, schema) in &self.spec.schemas {
            let (module, type_name) = split_schema_name(name);
            if let Some(first) = taken.insert((module.clone(), type_name.clone()), name) {
                return Err(self.error(
                    &schema.loc,
                    format!(
                        "schemas {first} and {name} both map to the Rust type {}{type_name}",
                        module.iter().map(|m| format!("{m}::")).collect::<String>()
                    ),
                ));
            }
            self.type_names.entry(module.clone()).or_default().insert(type_name.clone());
            self.ids.insert(name, TypeId::new(self.api.types.len()));
            let runtime = RUNTIME_SCHEMAS.iter().find(|(n, _)| n == name).map(|(_, s)| *s);
            self.api.types.push(TypeDef {
                origin: TypeOrigin::Schema(name.clone()),
                module,
                file: String::new(),
                name: type_name,
                doc: schema.description.clone(),
                source: schema.loc.doc.index(),
                wording: self.wording(&schema.loc),
                kind: match runtime {
                    Some(runtime) => TypeKind::Runtime(runtime),
                    None => TypeKind::Alias(FieldType::plain(Ty::Value)),
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
        for ty in &mut self.api.types {
            let names = taken.entry(ty.module.clone()).or_insert_with(|| {
                let mut reserved = submodules.get(&ty.module).cloned().unwrap_or_default();
                reserved.insert("mod".to_owned());
                reserved
            });
            ty.file = naming::unique(naming::snake_case(&ty.name), names, "_");
        }
    }
}

/// Where the schema of a type is written.
fn type_loc(ty: &TypeDef) -> Loc {
    let doc = crate::spec::DocId::new(ty.source);
    match &ty.origin {
        TypeOrigin::Schema(name) => Loc::component(doc, name),
        TypeOrigin::Inline { pointer, .. } => Loc::new(doc, pointer.clone()),
    }
}

/// `io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler` -> (`[api, autoscaling, v2]`, `HorizontalPodAutoscaler`).
fn split_schema_name(name: &str) -> (Vec<String>, String) {
    let trimmed = name.strip_prefix(KUBERNETES_PREFIX).unwrap_or(name);
    let mut segments: Vec<&str> = trimmed.split('.').collect();
    let last = segments.pop().unwrap_or_default();
    let module = segments.iter().filter(|s| !s.is_empty()).map(|s| naming::snake_case(s)).collect();
    (module, naming::type_name(last))
}
