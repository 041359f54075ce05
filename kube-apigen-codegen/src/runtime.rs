//! The meta types the runtime defines: `ObjectMeta`, `OwnerReference`, `ManagedFieldsEntry`,
//! `DeleteOptions`, `LabelSelector`, `WatchEvent`, ... (`kube_apigen::apimachinery`, at
//! the module paths generated crates give them). They are generated once, into the
//! runtime, from the definitions of the generator's built-in document, and every
//! generated crate re-exports them instead of emitting its own: two crates in one program
//! share one `ObjectMeta`. A spec's definition of one of them must agree with the
//! runtime's (the spec reader checks it).
//!
//! The types the runtime writes by hand (`Time`, `Status`, `ListMeta`, `Quantity`, ...)
//! are not among them: they are [`crate::ir::RuntimeType`]s.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use crate::error::Result;
use crate::ir::TypeKind;
use crate::spec::crd::BUILTIN;
use crate::{build, emit, spec, write};

/// The prefix of the schemas the runtime defines.
const APIMACHINERY: &str = "io.k8s.apimachinery.";

/// The module of the runtime that holds them, at the crate root of the runtime as of
/// generated crates.
pub(crate) const MODULE: &str = "apimachinery";

/// The names of the schemas the runtime defines: the built-in document's apimachinery
/// schemas, apart from the ones the runtime writes by hand.
static DEFINED: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    let schemas = BUILTIN.value.pointer("/components/schemas").and_then(|s| s.as_object());
    schemas
        .into_iter()
        .flat_map(|schemas| schemas.keys())
        .map(String::as_str)
        .filter(|name| name.starts_with(APIMACHINERY) && !build::is_runtime_schema(name))
        .collect()
});

/// The schemas the runtime defines whose types a crate takes from k8s-openapi under
/// [`crate::ir::Apimachinery::K8sOpenapi`], at the same module paths (k8s-openapi's modules
/// follow Go's packages as generated crates' do). The others (`DeleteOptions`,
/// `WatchEvent`, ...) are request and response bodies the server reads and writes: they
/// stay the runtime's.
const FROM_K8S_OPENAPI: &[&str] = &[
    "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
];

/// Whether k8s-openapi's type stands for the schema `name` under
/// [`crate::ir::Apimachinery::K8sOpenapi`].
pub fn from_k8s_openapi(name: &str) -> bool {
    FROM_K8S_OPENAPI.contains(&name)
}

/// Whether the runtime defines the schema `name`.
pub fn defines(name: &str) -> bool {
    DEFINED.contains(name)
}

/// Writes (or, with `check`, compares) the runtime's `apimachinery` module into `out`
/// (`kube-apigen/src/apimachinery`), from the built-in document and the `.proto` files
/// under `protos`; `command` is named in every file's header.
pub fn generate(protos: &Path, out: &Path, check: bool, command: &str) -> Result<write::Changes> {
    let document = BUILTIN.clone();
    let spec = spec::Spec::read(vec![document.clone()])?;
    let protos = spec::proto::Protos::read(protos)?;
    let mut api = build::build(&spec, &protos)?;
    // Any of them may be a request or response body of some crate's operations
    // (`DeleteOptions`, `WatchEvent`, ...).
    let structs: Vec<_> = api
        .type_ids()
        .filter(|&id| api.defined_by_runtime(id) && matches!(api.ty(id).kind, TypeKind::Struct(_)))
        .collect();
    api.protobuf.payloads.extend(structs);
    let header = emit::Header { command: command.to_owned(), specs_label: document.display_path.display().to_string() };
    let files = emit::emit_runtime_models(&api, header)?;
    let unchanged = Default::default();
    if check { write::compare(out, &files, &unchanged) } else { write::write(out, &files, &unchanged) }
}

/// Writes (or, with `check`, compares) `out`, the validation layer's file of `Validate`
/// impls for k8s-openapi's types of the schemas crates take from it
/// ([`from_k8s_openapi`]), behind its `k8s-openapi` feature.
pub fn generate_k8s_openapi(protos: &Path, out: &Path, check: bool, command: &str) -> Result<write::Changes> {
    let document = BUILTIN.clone();
    let spec = spec::Spec::read(vec![document.clone()])?;
    let protos = spec::proto::Protos::read(protos)?;
    let api = build::build(&spec, &protos)?;
    let types: Vec<_> = api
        .type_ids()
        .filter(|&id| api.from_k8s_openapi(id) && matches!(api.ty(id).kind, TypeKind::Struct(_)))
        .collect();
    let header = emit::Header { command: command.to_owned(), specs_label: document.display_path.display().to_string() };
    write::file(out, &emit::emit_k8s_openapi_checks(&api, header, &types)?, check)
}
