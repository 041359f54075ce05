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
use crate::ir::{Api, GroupVersion, Resource, TypeId, TypeKind};

/// How the output crate is named and linked.
#[derive(Debug, Clone)]
pub struct CrateOptions {
    pub package_name: String,
    /// Path from the output folder to the runtime crate (`kube-apigen`), as written in
    /// `Cargo.toml`.
    pub runtime_path: String,
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
    let emitter = Emitter::new(api, options);
    Ok(crate::format::format_crate(emitter.files()?, |file| emitter.emit(file), None)?.texts)
}

/// Emits the files of one output crate. [`Emitter::files`] lays the crate out;
/// [`Emitter::emit`] then prints one file, on whichever thread asks, so that files are
/// emitted and formatted side by side.
pub struct Emitter<'a> {
    api: &'a Api,
    options: &'a CrateOptions,
    analysis: validation::Analysis,
}

/// A file of the output crate, by what it is emitted from.
pub enum File<'a> {
    /// Written as it is.
    Text(String),
    /// A group/version's served OpenAPI document.
    OpenApi(&'a GroupVersion),
    /// A resource's handler trait and routes.
    Resource(&'a Resource),
    /// A group/version's router.
    Routes(&'a GroupVersion),
    Params,
    Responses,
    Server,
    /// The test that decoding `{}` gives each of these models' `Default`.
    SpecDefaults(Vec<TypeId>),
    /// A module's `lib.rs` or `mod.rs`.
    Module(Module<'a>),
    /// Models of one module that share a file, with their validation and protobuf codecs.
    Models {
        module: &'a [String],
        types: Vec<TypeId>,
    },
}

/// What a module file declares.
pub struct Module<'a> {
    path: &'a [String],
    children: BTreeSet<&'a str>,
    /// The module's model files, with every type each holds (runtime types included, which
    /// the module re-exports from the runtime).
    files: BTreeMap<&'a str, Vec<TypeId>>,
    /// Files of the module behind a `cfg`, in the order they are declared.
    gated: Vec<Gated<'a>>,
}

/// A module declaration behind a feature (the `server` feature's files), or behind
/// `cfg(test)` (the spec defaults test).
enum Gated<'a> {
    /// A resource's file and its trait.
    Resource(&'a Resource),
    /// A group/version's `routes`.
    Routes,
    /// The crate's `params`, `responses` and `server`.
    ServerModules,
    /// The `spec_defaults` test.
    SpecDefaults,
}

impl<'a> Emitter<'a> {
    pub fn new(api: &'a Api, options: &'a CrateOptions) -> Self {
        Emitter { api, options, analysis: validation::Analysis::new(api) }
    }

    /// Every file of the output crate, by path relative to its root, not yet emitted.
    pub fn files(&self) -> Result<Vec<(PathBuf, File<'a>)>> {
        let api = self.api;
        let mut files = vec![(PathBuf::from("Cargo.toml"), File::Text(cargo_toml(self.options)))];

        // Group types by module and file; BTreeMaps keep the output order stable.
        let mut modules: BTreeMap<&[String], Module> = BTreeMap::new();
        module(&mut modules, &[]);
        for id in api.type_ids() {
            let ty = api.ty(id);
            module(&mut modules, &ty.module).files.entry(&ty.file).or_default().push(id);
            for depth in 0..ty.module.len() {
                module(&mut modules, &ty.module[..depth]).children.insert(&ty.module[depth]);
            }
        }

        // Handler files: per resource its trait and routes, per group/version its router; they,
        // the parameter and response types and `server.rs` are the `server` feature's.
        for resource in &api.resources {
            let ty = api.ty(resource.type_id);
            files.push((module_folder(&ty.module).join(format!("{}.rs", resource.file)), File::Resource(resource)));
            module(&mut modules, &ty.module).gated.push(Gated::Resource(resource));
        }
        for gv in &api.group_versions {
            let folder = module_folder(&gv.module);
            files.push((folder.join("routes.rs"), File::Routes(gv)));
            files.push((folder.join("openapi.json"), File::OpenApi(gv)));
            module(&mut modules, &gv.module).gated.push(Gated::Routes);
        }
        files.push((PathBuf::from("src/params.rs"), File::Params));
        files.push((PathBuf::from("src/responses.rs"), File::Responses));
        files.push((PathBuf::from("src/server.rs"), File::Server));
        module(&mut modules, &[]).gated.push(Gated::ServerModules);
        let defaulted: Vec<TypeId> =
            api.type_ids().filter(|&id| matches!(&api.ty(id).kind, TypeKind::Struct(s) if s.has_defaults())).collect();
        if !defaulted.is_empty() {
            files.push((PathBuf::from("src/spec_defaults.rs"), File::SpecDefaults(defaulted)));
            module(&mut modules, &[]).gated.push(Gated::SpecDefaults);
        }

        for (path, module) in modules {
            let folder = module_folder(path);
            for (file, ids) in &module.files {
                let types: Vec<TypeId> =
                    ids.iter().copied().filter(|&id| !matches!(api.ty(id).kind, TypeKind::Runtime(_))).collect();
                if !types.is_empty() {
                    files.push((folder.join(format!("{file}.rs")), File::Models { module: path, types }));
                }
            }
            let module_file = if path.is_empty() { "lib.rs" } else { "mod.rs" };
            files.push((folder.join(module_file), File::Module(module)));
        }
        files.push((PathBuf::from("rustfmt.toml"), File::Text(crate::format::policy()?)));
        Ok(files)
    }

    /// The source of one file.
    pub fn emit(&self, file: File<'a>) -> Source {
        let api = self.api;
        let crate_header = || header(&self.options.specs_label);
        match file {
            File::Text(text) => Source::Text(text),
            File::OpenApi(gv) => Source::Text(gv.openapi.to_string()),
            File::Resource(resource) => {
                let ty = api.ty(resource.type_id);
                let handlers = resource.methods.iter().flat_map(|m| &m.routes).map(|r| r.handler.as_str());
                let own = [resource.trait_name.as_str(), "routes"].into_iter().chain(handlers);
                let mut scope = Scope::new(api, &ty.module, own);
                let tokens = resource_api::resource_file(&mut scope, resource);
                rust_file(&scope, tokens, &header(&source_label(&api.sources[ty.source])))
            }
            File::Routes(gv) => {
                let mut scope = Scope::new(api, &gv.module, ["router", "GROUP_VERSION"]);
                let tokens = routes::group_version_file(&mut scope, gv);
                rust_file(&scope, tokens, &crate_header())
            }
            File::Params => {
                let set_names =
                    api.param_sets.iter().map(|s| s.name.as_str()).chain(api.path_sets.iter().map(|s| s.name.as_str()));
                let mut scope = Scope::new(api, &[], set_names);
                let tokens = params::params_file(&mut scope);
                rust_file(&scope, tokens, &crate_header())
            }
            File::Responses => {
                let mut scope = Scope::new(api, &[], api.response_sets.iter().map(|s| s.name.as_str()));
                let tokens = params::responses_file(&mut scope);
                rust_file(&scope, tokens, &crate_header())
            }
            File::Server => {
                let mut scope = Scope::new(api, &[], ["Server", "CATALOG", "TYPED_CHECKS", "router", "api"]);
                let tokens = server::server_file(&mut scope);
                rust_file(&scope, tokens, &crate_header())
            }
            File::SpecDefaults(types) => {
                let mut scope = Scope::new(api, &[], ["check", "default_is_what_decoding_an_empty_object_gives"]);
                let tokens = spec_defaults_test(&mut scope, &types);
                rust_file(&scope, tokens, &crate_header())
            }
            File::Module(module) => {
                Source::Rust(RustSource::new(crate_header(), TokenStream::new(), module_items(api, &module)))
            }
            File::Models { module, types } => {
                let infos = types.iter().filter_map(|&id| match &api.ty(id).kind {
                    TypeKind::Struct(crate::ir::Struct { resource: Some(resource), .. }) => {
                        Some(api.resource(*resource).info_static.as_str())
                    }
                    _ => None,
                });
                let own = types.iter().map(|&id| api.ty(id).name.as_str()).chain(infos);
                let mut scope = Scope::new(api, module, own);
                let tokens: TokenStream = types
                    .iter()
                    .flat_map(|&id| {
                        let model = models::emit(&mut scope, id);
                        let validation = scope.gated(Feature::Validation, |scope| {
                            validation::emit(scope, &self.analysis, id, self.options.translate_cel)
                        });
                        [model, validation, protobuf::emit(&mut scope, id)]
                    })
                    .collect();
                rust_file(&scope, tokens, &header(&source_label(&api.sources[api.ty(types[0]).source])))
            }
        }
    }
}

/// `src/spec_defaults.rs`: a test that each model's `Default` is what decoding `{}` gives.
fn spec_defaults_test(scope: &mut Scope, defaulted: &[TypeId]) -> TokenStream {
    let types: Vec<TokenStream> = defaulted.iter().map(|&id| scope.named(id)).collect();
    let (deserialize, debug) = (scope.import("serde::de::DeserializeOwned"), scope.import("std::fmt::Debug"));
    quote! {
        //! Models with spec defaults: `Default` is what decoding `{}` gives.

        fn check<T: Default + PartialEq + #debug + #deserialize>() {
            let decoded: T = serde_json::from_str("{}").expect("`{}` decodes");
            assert_eq!(T::default(), decoded, "{}", std::any::type_name::<T>());
        }

        #[test]
        fn default_is_what_decoding_an_empty_object_gives() {
            #(check::<#types>();)*
        }
    }
}

/// The entry of module `path`, new if it has none yet.
fn module<'m, 'a>(modules: &'m mut BTreeMap<&'a [String], Module<'a>>, path: &'a [String]) -> &'m mut Module<'a> {
    modules.entry(path).or_insert_with(|| Module {
        path,
        children: BTreeSet::new(),
        files: BTreeMap::new(),
        gated: Vec::new(),
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
fn module_items(api: &Api, module: &Module) -> TokenStream {
    let crate_doc = module.path.is_empty().then(|| {
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
    let children = module.children.iter().map(|child| {
        let child = format_ident!("{}", child);
        quote! { pub mod #child; }
    });
    let mut file_items = Vec::new();
    let mut runtime_items = Vec::new();
    for (file, ids) in &module.files {
        let mut exported = Vec::new();
        for &id in ids {
            let ty = api.ty(id);
            match &ty.kind {
                TypeKind::Runtime(runtime) => {
                    let name = format_ident!("{}", runtime.name());
                    runtime_items.push(quote! { pub use kube_apigen::#name; });
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
    let gated = module.gated.iter().map(|gated| match gated {
        Gated::Resource(resource) => {
            let (file, name) = (format_ident!("{}", resource.file), format_ident!("{}", resource.trait_name));
            Feature::Server.gate([quote!(mod #file;), quote!(pub use self::#file::#name;)])
        }
        Gated::Routes => Feature::Server.gate([quote!(
            pub mod routes;
        )]),
        Gated::ServerModules => Feature::Server.gate(["params", "responses", "server"].map(|module| {
            let module = format_ident!("{module}");
            quote!(pub mod #module;)
        })),
        Gated::SpecDefaults => quote! {
            #[cfg(test)]
            mod spec_defaults;
        },
    });
    quote! {
        #crate_doc
        #(#children)*
        #(#file_items)*
        #(#runtime_items)*
        #(#gated)*
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
kube-apigen = {{ path = \"{runtime}\" }}
serde = \"{SERDE_VERSION}\"
serde_json = \"{SERDE_JSON_VERSION}\"

{features}{workspace}",
        header = header(&options.specs_label).replace("//", "#"),
        name = options.package_name,
        runtime = options.runtime_path,
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

/// The name of an enum variant (of `kube_apigen::Scope`, `kube_apigen::meta::NameRule`) as an
/// identifier: its `Debug` text.
fn variant(value: impl std::fmt::Debug) -> proc_macro2::Ident {
    format_ident!("{}", format!("{value:?}"))
}
