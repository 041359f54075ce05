//! Emitters: IR to Rust source, one emitter per concern, assembled into files here.

pub mod cel;
mod features;
mod models;
mod params;
mod protobuf;
mod resource_api;
mod routes;
mod scope;
mod server;
mod validation;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use self::features::Feature;
use self::scope::Scope;
use crate::error::Result;
use crate::format::{RustSource, Source};
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
    /// Whether CEL rules in the common subset are translated to Rust ([`cel`]); without it
    /// the interpreter checks every rule, which tests compare against.
    pub translate_cel: bool,
}

/// Versions of the crates generated code depends on, kept in step with the workspace.
const SERDE_VERSION: &str = "1";
const SERDE_JSON_VERSION: &str = "1";

/// Every file of the output crate, by path relative to its root, with its final text.
pub fn emit_crate(api: &Api, options: &CrateOptions) -> Result<BTreeMap<PathBuf, String>> {
    Ok(crate::format::format_crate(emit_sources(api, options)?, None)?.texts)
}

/// Every file of the output crate, by path relative to its root, before formatting.
pub fn emit_sources(api: &Api, options: &CrateOptions) -> Result<BTreeMap<PathBuf, Source>> {
    let mut files = BTreeMap::new();
    files.insert(PathBuf::from("Cargo.toml"), Source::Text(cargo_toml(options)));
    let crate_header = header(&options.specs_label);

    // Group types by module and file; BTreeMaps keep the output order stable.
    let mut modules: BTreeMap<&[String], BTreeMap<&str, Vec<TypeId>>> = BTreeMap::new();
    let mut submodules: BTreeMap<&[String], BTreeSet<&str>> = BTreeMap::new();
    for id in api.type_ids() {
        let ty = api.ty(id);
        modules.entry(&ty.module).or_default().entry(&ty.file).or_default().push(id);
        for depth in 0..ty.module.len() {
            modules.entry(&ty.module[..depth]).or_default();
            submodules.entry(&ty.module[..depth]).or_default().insert(&ty.module[depth]);
        }
    }
    modules.entry(&[]).or_default();
    let analysis = validation::Analysis::new(api);

    // Handler files: per resource its trait and routes, per group/version its router; they
    // and the files after them are the `server` feature's.
    let mut extra_items: BTreeMap<&[String], Vec<TokenStream>> = BTreeMap::new();
    for resource in &api.resources {
        let ty = api.ty(resource.type_id);
        let folder = module_folder(&ty.module);
        let handlers = resource.methods.iter().flat_map(|m| &m.routes).map(|r| r.handler.as_str());
        let own = [resource.trait_name.as_str(), "routes"].into_iter().chain(handlers);
        let mut scope = Scope::new(api, &ty.module, own);
        let tokens = resource_api::resource_file(&mut scope, resource);
        let source = source_label(&api.sources[ty.source]);
        files.insert(folder.join(format!("{}.rs", resource.file)), rust_file(&scope, tokens, &header(&source)));
        let (file, name) = (format_ident!("{}", resource.file), format_ident!("{}", resource.trait_name));
        extra_items
            .entry(&ty.module)
            .or_default()
            .push(Feature::Server.gate([quote!(mod #file;), quote!(pub use self::#file::#name;)]));
    }
    for gv in &api.group_versions {
        let folder = module_folder(&gv.module);
        let mut scope = Scope::new(api, &gv.module, ["router", "GROUP_VERSION"]);
        let tokens = routes::group_version_file(&mut scope, gv);
        files.insert(folder.join("routes.rs"), rust_file(&scope, tokens, &crate_header));
        files.insert(folder.join("openapi.json"), Source::Text(gv.openapi.to_string()));
        extra_items.entry(&gv.module).or_default().push(Feature::Server.gate([quote!(
            pub mod routes;
        )]));
    }
    let set_names = api.param_sets.iter().map(|s| s.name.as_str()).chain(api.path_sets.iter().map(|s| s.name.as_str()));
    let mut scope = Scope::new(api, &[], set_names);
    let tokens = params::params_file(&mut scope);
    files.insert(PathBuf::from("src/params.rs"), rust_file(&scope, tokens, &crate_header));
    let mut scope = Scope::new(api, &[], api.response_sets.iter().map(|s| s.name.as_str()));
    let tokens = params::responses_file(&mut scope);
    files.insert(PathBuf::from("src/responses.rs"), rust_file(&scope, tokens, &crate_header));
    let mut scope = Scope::new(api, &[], ["Server", "CATALOG", "TYPED_CHECKS", "router"]);
    let tokens = server::server_file(&mut scope);
    files.insert(PathBuf::from("src/server.rs"), rust_file(&scope, tokens, &crate_header));
    let server_modules = ["params", "responses", "server"].map(|module| {
        let module = format_ident!("{module}");
        quote!(pub mod #module;)
    });
    extra_items.entry(&[]).or_default().push(Feature::Server.gate(server_modules));
    let mut scope = Scope::new(api, &[], ["check", "default_is_what_decoding_an_empty_object_gives"]);
    if let Some(tokens) = spec_defaults_test(&mut scope) {
        files.insert(PathBuf::from("src/spec_defaults.rs"), rust_file(&scope, tokens, &crate_header));
        extra_items.entry(&[]).or_default().push(quote! {
            #[cfg(test)]
            mod spec_defaults;
        });
    }

    for (module, module_files) in &modules {
        let folder = module_folder(module);
        let children = submodules.get(module).cloned().unwrap_or_default();
        let module_file = if module.is_empty() { "lib.rs" } else { "mod.rs" };
        let extra = extra_items.remove(module).unwrap_or_default();
        let tokens = module_items(api, module.is_empty(), &children, module_files, &extra);
        let source = RustSource::new(crate_header.clone(), TokenStream::new(), tokens);
        files.insert(folder.join(module_file), Source::Rust(source));
        for (file, ids) in module_files {
            let real: Vec<TypeId> =
                ids.iter().copied().filter(|&id| !matches!(api.ty(id).kind, TypeKind::Support(_))).collect();
            if real.is_empty() {
                continue;
            }
            let infos = real.iter().filter_map(|&id| match &api.ty(id).kind {
                TypeKind::Struct(crate::ir::Struct { resource: Some(resource), .. }) => {
                    Some(api.resource(*resource).info_static.as_str())
                }
                _ => None,
            });
            let own = real.iter().map(|&id| api.ty(id).name.as_str()).chain(infos);
            let mut scope = Scope::new(api, module, own);
            let tokens: TokenStream = real
                .iter()
                .flat_map(|&id| {
                    let model = models::emit(&mut scope, id);
                    let validation = scope.gated(Feature::Validation, |scope| {
                        validation::emit(scope, &analysis, id, options.translate_cel)
                    });
                    [model, validation, protobuf::emit(&mut scope, id)]
                })
                .collect();
            let source = source_label(&api.sources[api.ty(real[0]).source]);
            files.insert(folder.join(format!("{file}.rs")), rust_file(&scope, tokens, &header(&source)));
        }
    }
    files.insert(PathBuf::from("rustfmt.toml"), Source::Text(crate::format::policy()?));
    Ok(files)
}

/// `src/spec_defaults.rs`, when some model has spec defaults: a test that each one's
/// `Default` is what decoding `{}` gives.
fn spec_defaults_test(scope: &mut Scope) -> Option<TokenStream> {
    let api = scope.api;
    let defaulted: Vec<TypeId> =
        api.type_ids().filter(|&id| matches!(&api.ty(id).kind, TypeKind::Struct(s) if s.has_defaults())).collect();
    if defaulted.is_empty() {
        return None;
    }
    let types: Vec<TokenStream> = defaulted.into_iter().map(|id| scope.named(id)).collect();
    let (deserialize, debug) = (scope.import("serde::de::DeserializeOwned"), scope.import("std::fmt::Debug"));
    Some(quote! {
        //! Models with spec defaults: `Default` is what decoding `{}` gives.

        fn check<T: Default + PartialEq + #debug + #deserialize>() {
            let decoded: T = serde_json::from_str("{}").expect("`{}` decodes");
            assert_eq!(T::default(), decoded, "{}", std::any::type_name::<T>());
        }

        #[test]
        fn default_is_what_decoding_an_empty_object_gives() {
            #(check::<#types>();)*
        }
    })
}

/// `src/<module path>`.
fn module_folder(module: &[String]) -> PathBuf {
    std::iter::once("src").chain(module.iter().map(String::as_str)).collect()
}

/// A file: the header, the scope's `use` block, then the items.
fn rust_file(scope: &Scope, items: TokenStream, header: &str) -> Source {
    Source::Rust(RustSource::new(header.to_owned(), scope.uses(), items))
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
            //!
            //! Features: `validation` (the `Validate` impls) and `server` (handler traits,
            //! routers, parameter types and discovery; implies `validation`), both default;
            //! without them the crate has the models alone: serde, protobuf codecs and resource
            //! identity. `dynamic` (implies `server`) adds `server::TYPED_CHECKS`, for servers
            //! that hold objects as JSON.
            // Descriptions come from the specs, in their own markdown; CEL rules compiled to
            // Rust keep the shape the spec wrote them in.
            #![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::nonminimal_bool)]
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
            let ty = api.ty(id);
            match &ty.kind {
                TypeKind::Support(support) => {
                    let name = format_ident!("{}", support.name());
                    support_items.push(quote! { pub use support::#name; });
                }
                TypeKind::Struct(crate::ir::Struct { resource: Some(resource), .. }) => {
                    exported.push(format_ident!("{}", ty.name));
                    exported.push(format_ident!("{}", api.resource(*resource).info_static));
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
serde = \"{SERDE_VERSION}\"
serde_json = \"{SERDE_JSON_VERSION}\"
support = {{ path = \"{support}\" }}

{features}{workspace}",
        header = header(&options.specs_label).replace("//", "#"),
        name = options.package_name,
        support = options.support_path,
        features = Feature::cargo_table(),
    )
}

fn header(source: &str) -> String {
    format!("// Generated by cargo xtask codegen from {source}. Do not edit.\n")
}

/// A spec path with forward slashes on every platform, so output is byte-identical.
fn source_label(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
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

/// An integer literal without a suffix: the type is the one its place asks for.
fn integer_literal(n: i64) -> TokenStream {
    let literal = Literal::u64_unsuffixed(n.unsigned_abs());
    if n < 0 { quote!(-#literal) } else { quote!(#literal) }
}

/// A float literal without a suffix (`1.0`, not `1f64`).
fn float_literal(f: f64) -> TokenStream {
    let literal = Literal::f64_unsuffixed(f.abs());
    if f.is_sign_negative() { quote!(-#literal) } else { quote!(#literal) }
}

/// The name of an enum variant (of `support::Scope`, `support::meta::NameRule`) as an
/// identifier: its `Debug` text.
fn variant(value: impl std::fmt::Debug) -> proc_macro2::Ident {
    format_ident!("{}", format!("{value:?}"))
}
