//! Emitters: IR to Rust source, one emitter per concern, assembled into files here.

pub mod cel;
mod handlers;
mod models;
mod params;
mod paths;
mod validation;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::error::Result;
use crate::ir::{Api, TypeId, TypeKind};

/// How the output crate is named and linked.
#[derive(Debug, Clone)]
pub struct CrateOptions {
    pub package_name: String,
    /// Path from the output folder to the support crate, as written in `Cargo.toml`.
    pub support_path: String,
    /// Adds an empty `[workspace]` so the crate builds on its own wherever it is written.
    pub standalone: bool,
    /// The specs folder as shown in headers (`specs/`).
    pub specs_label: String,
}

/// Versions of the crates generated code depends on, kept in step with the workspace.
const SERDE_VERSION: &str = "1";
const SERDE_JSON_VERSION: &str = "1";

/// Every file of the output crate, by path relative to its root, with its final text.
pub fn emit_crate(api: &Api, options: &CrateOptions) -> Result<BTreeMap<PathBuf, String>> {
    let mut files = BTreeMap::new();
    files.insert(PathBuf::from("Cargo.toml"), cargo_toml(options));

    // Group types by module and file; BTreeMaps keep the output order stable.
    let mut modules: BTreeMap<&[String], BTreeMap<&str, Vec<TypeId>>> = BTreeMap::new();
    let mut submodules: BTreeMap<&[String], BTreeSet<&str>> = BTreeMap::new();
    for (id, ty) in api.types.iter().enumerate() {
        modules.entry(&ty.module).or_default().entry(&ty.file).or_default().push(id);
        for depth in 0..ty.module.len() {
            modules.entry(&ty.module[..depth]).or_default();
            submodules.entry(&ty.module[..depth]).or_default().insert(&ty.module[depth]);
        }
    }
    modules.entry(&[]).or_default();
    let analysis = validation::Analysis::new(api);

    // Handler files: per resource its trait and routes, per group/version its router.
    let mut extra_items: BTreeMap<&[String], Vec<TokenStream>> = BTreeMap::new();
    for resource_api in &api.server.resources {
        let ty = &api.types[api.resources[resource_api.resource].type_id];
        let folder: PathBuf = std::iter::once("src".to_owned()).chain(ty.module.iter().cloned()).collect();
        let tokens = handlers::resource_file(api, resource_api);
        let source = source_label(&api.documents[ty.source].display_path);
        files.insert(folder.join(format!("{}.rs", resource_api.file)), format_rust(tokens, &header(&source))?);
        let (file, name, info) = (
            format_ident!("{}", resource_api.file),
            format_ident!("{}", resource_api.trait_name),
            format_ident!("{}", resource_api.info_static),
        );
        extra_items.entry(&ty.module).or_default().push(quote! {
            mod #file;
            pub use self::#file::{#name, #info};
        });
    }
    for gv in &api.server.group_versions {
        let folder: PathBuf = std::iter::once("src".to_owned()).chain(gv.module.iter().cloned()).collect();
        let tokens = handlers::group_version_file(api, gv);
        files.insert(folder.join("routes.rs"), format_rust(tokens, &header(&options.specs_label))?);
        files.insert(folder.join("openapi.json"), gv.openapi.clone());
        extra_items.entry(&gv.module).or_default().push(quote!(
            pub mod routes;
        ));
    }
    files.insert(PathBuf::from("src/params.rs"), format_rust(params::params_file(api), &header(&options.specs_label))?);
    files.insert(
        PathBuf::from("src/responses.rs"),
        format_rust(params::responses_file(api), &header(&options.specs_label))?,
    );
    files.insert(
        PathBuf::from("src/server.rs"),
        format_rust(handlers::server_file(api), &header(&options.specs_label))?,
    );
    extra_items.entry(&[]).or_default().push(quote! {
        pub mod params;
        pub mod responses;
        pub mod server;
    });

    for (module, module_files) in &modules {
        let folder: PathBuf = std::iter::once("src".to_owned()).chain(module.iter().cloned()).collect();
        let children = submodules.get(module).cloned().unwrap_or_default();
        let module_file = if module.is_empty() { "lib.rs" } else { "mod.rs" };
        let extra = extra_items.remove(module).unwrap_or_default();
        let tokens = module_items(api, module.is_empty(), &children, module_files, &extra);
        files.insert(folder.join(module_file), format_rust(tokens, &header(&options.specs_label))?);
        for (file, ids) in module_files {
            let real: Vec<TypeId> =
                ids.iter().copied().filter(|&id| !matches!(api.types[id].kind, TypeKind::Support(_))).collect();
            if real.is_empty() {
                continue;
            }
            let tokens: TokenStream =
                real.iter().flat_map(|&id| [models::emit(api, id), validation::emit(api, &analysis, id)]).collect();
            let source = &api.documents[api.types[real[0]].source].display_path;
            files.insert(folder.join(format!("{file}.rs")), format_rust(tokens, &header(&source_label(source)))?);
        }
    }
    files.insert(PathBuf::from("rustfmt.toml"), crate::format::policy()?);
    crate::format::rustfmt_all(&mut files)?;
    Ok(files)
}

/// `mod` declarations and re-exports of one module.
fn module_items(
    api: &Api,
    is_root: bool,
    children: &BTreeSet<&str>,
    files: &BTreeMap<&str, Vec<TypeId>>,
    extra: &[TokenStream],
) -> TokenStream {
    let crate_doc = is_root.then(|| {
        quote! {
            //! Kubernetes API types, validation and axum handlers generated from OpenAPI specs.
            // Descriptions come from the specs, in their own markdown; errors are Kubernetes
            // `Status` objects, large but only built on the failure path. CEL rules compiled to
            // Rust keep the shape the spec wrote them in.
            #![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::nonminimal_bool, clippy::result_large_err)]
        }
    });
    let children = children.iter().map(|child| {
        let child = format_ident!("{}", child);
        quote! { pub mod #child; }
    });
    let mut file_items = Vec::new();
    let mut support_items = Vec::new();
    for (file, ids) in files {
        let mut exported = Vec::new();
        for &id in ids {
            let ty = &api.types[id];
            match &ty.kind {
                TypeKind::Support(support) => {
                    let name = format_ident!("{}", support.name());
                    support_items.push(quote! { pub use support::#name; });
                }
                _ => exported.push(format_ident!("{}", ty.name)),
            }
        }
        if !exported.is_empty() {
            let file = format_ident!("{}", file);
            file_items.push(quote! {
                mod #file;
                pub use self::#file::{#(#exported),*};
            });
        }
    }
    quote! {
        #crate_doc
        #(#children)*
        #(#file_items)*
        #(#support_items)*
        #(#extra)*
    }
}

fn cargo_toml(options: &CrateOptions) -> String {
    let workspace = if options.standalone { "\n[workspace]\n" } else { "" };
    format!(
        "{header}\
[package]
name = \"{name}\"
version = \"0.1.0\"
edition = \"2024\"
publish = false

[dependencies]
serde = {{ version = \"{SERDE_VERSION}\", features = [\"derive\"] }}
serde_json = \"{SERDE_JSON_VERSION}\"
support = {{ path = \"{support}\" }}
{workspace}",
        header = header(&options.specs_label).replace("//", "#"),
        name = options.package_name,
        support = options.support_path,
    )
}

fn header(source: &str) -> String {
    format!("// Generated by cargo xtask codegen from {source}. Do not edit.\n")
}

/// A spec path with forward slashes on every platform, so output is byte-identical.
fn source_label(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Source text of `tokens` under the header line (rustfmt formats it later, with the rest).
fn format_rust(tokens: TokenStream, header: &str) -> Result<String> {
    Ok(format!("{header}\n{}", crate::format::unparse(tokens)?))
}

/// `#[doc = "..."]` attributes, one per line of a description.
fn doc_attrs(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc else { return TokenStream::new() };
    doc.lines()
        .map(|line| {
            // Tabs in descriptions (indented Go examples) become spaces: rustdoc and clippy
            // expect them so.
            let line = line.trim_end().replace('\t', "    ");
            let line = if line.is_empty() { String::new() } else { format!(" {line}") };
            quote! { #[doc = #line] }
        })
        .collect()
}
