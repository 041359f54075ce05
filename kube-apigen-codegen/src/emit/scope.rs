//! The names one generated file uses, and its `use` block.
//!
//! Emitters ask a [`Scope`] how to write a type or an item of another crate or module; it
//! answers with the last segment and records the import, unless another item of the file
//! already has that name, in which case it answers with the full path. At the end,
//! [`Scope::uses`] prints the imports, grouped by path; an import that only code behind a
//! feature uses ([`Scope::gated`]) is behind that feature too.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::features::Feature;
use crate::ir::{Api, Apimachinery, FieldType, RuntimeType, Ty, TypeId, TypeKind};

pub struct Scope<'a> {
    pub api: &'a Api,
    /// The module of the file's types (types of that module are imported from `super`).
    module: &'a [String],
    /// Every name the file defines or imports: `None` for its own items, else the import.
    names: BTreeMap<String, Option<Import>>,
    /// The feature the code being emitted is behind, if any.
    gate: Option<Feature>,
    /// Whose apimachinery types the file names.
    apimachinery: Apimachinery,
}

struct Import {
    path: String,
    /// The gates of the code using it (`None`: code behind no feature).
    used_under: BTreeSet<Option<Feature>>,
}

impl<'a> Scope<'a> {
    /// The scope of a file of `module` defining the items `own` (types, functions, statics).
    pub fn new<'n>(api: &'a Api, module: &'a [String], own: impl IntoIterator<Item = &'n str>) -> Scope<'a> {
        let names = own.into_iter().map(|name| (name.to_owned(), None)).collect();
        Scope { api, module, names, gate: None, apimachinery: Apimachinery::Runtime }
    }

    /// The same scope naming `apimachinery`'s types.
    pub fn with_apimachinery(self, apimachinery: Apimachinery) -> Self {
        Scope { apimachinery, ..self }
    }

    /// Whether the file names k8s-openapi's apimachinery types.
    pub fn k8s_openapi(&self) -> bool {
        self.apimachinery == Apimachinery::K8sOpenapi
    }

    /// The path of a runtime type: k8s-openapi's where the file names those, else the
    /// runtime's.
    pub fn runtime_type(&mut self, runtime: RuntimeType) -> TokenStream {
        match runtime.k8s_openapi_path() {
            Some(path) if self.k8s_openapi() => self.import(path),
            _ => self.import(&format!("kube_apigen::{}", runtime.name())),
        }
    }

    /// `path` (`kube_apigen::field::Path`) as the file writes it: its last segment,
    /// imported, or the whole path when the file has another item of that name.
    pub fn import(&mut self, path: &str) -> TokenStream {
        if self.claim(path) { ident(last_segment(path)) } else { path.parse().expect("a Rust path") }
    }

    /// Brings the trait at `path` into scope for method calls; false when the file has
    /// another item of its name (callers then name the trait in full).
    pub fn import_trait(&mut self, path: &str) -> bool {
        self.claim(path)
    }

    /// Whether the last segment of `path` names it in this file, importing it if free.
    fn claim(&mut self, path: &str) -> bool {
        let name = last_segment(path);
        let import = self
            .names
            .entry(name.to_owned())
            .or_insert_with(|| Some(Import { path: path.to_owned(), used_under: BTreeSet::new() }));
        match import {
            Some(import) if import.path == path => {
                import.used_under.insert(self.gate);
                true
            }
            _ => false,
        }
    }

    /// The item `emit` writes (one item, or nothing) behind `feature`, as are the imports
    /// only it uses.
    pub fn gated(&mut self, feature: Feature, emit: impl FnOnce(&mut Self) -> TokenStream) -> TokenStream {
        let outer = self.gate.replace(feature);
        let item = emit(self);
        self.gate = outer;
        feature.gate([item])
    }

    /// A named type as this file writes it.
    pub fn named(&mut self, id: TypeId) -> TokenStream {
        let ty = self.api.ty(id);
        if let TypeKind::Runtime(runtime) = ty.kind {
            return self.runtime_type(runtime);
        }
        if self.k8s_openapi() && self.api.from_k8s_openapi(id) {
            return self.import(&format!("k8s_openapi::{}::{}", ty.module.join("::"), ty.name));
        }
        if matches!(self.names.get(&ty.name), Some(None)) && ty.module == self.module {
            return ident(&ty.name);
        }
        let module =
            if ty.module == self.module { "super".to_owned() } else { format!("crate::{}", ty.module.join("::")) };
        self.import(&format!("{module}::{}", ty.name))
    }

    /// The Rust type of `ty`.
    pub fn rust_type(&mut self, ty: &Ty) -> TokenStream {
        match ty {
            Ty::Bool => quote!(bool),
            Ty::I32 => quote!(i32),
            Ty::I64 => quote!(i64),
            Ty::F64 => quote!(f64),
            Ty::String => quote!(String),
            Ty::Value => self.import("serde_json::Value"),
            Ty::Runtime(runtime) => self.runtime_type(*runtime),
            Ty::Named(id) => self.named(*id),
            Ty::Vec(item) => {
                let item = self.field_type(item);
                quote!(Vec<#item>)
            }
            Ty::Map(value) => {
                let value = self.field_type(value);
                let map = self.import("std::collections::BTreeMap");
                quote!(#map<String, #value>)
            }
        }
    }

    fn field_type(&mut self, ty: &FieldType) -> TokenStream {
        self.rust_type(&ty.ty)
    }

    /// The `use` items of everything imported, one per module and gate, sorted.
    pub fn uses(&self) -> TokenStream {
        let mut modules: BTreeMap<(Vec<Feature>, &str), BTreeSet<&str>> = BTreeMap::new();
        for import in self.names.values().flatten() {
            // Behind a feature only if no ungated code uses it.
            let gates = if import.used_under.contains(&None) {
                Vec::new()
            } else {
                import.used_under.iter().flatten().copied().collect()
            };
            let (module, name) = import.path.rsplit_once("::").expect("imports are paths");
            modules.entry((gates, module)).or_default().insert(name);
        }
        modules
            .into_iter()
            .map(|((gates, module), names)| {
                let cfg = Feature::cfg_any(&gates);
                let module: TokenStream = module.parse().expect("a Rust path");
                let names: Vec<_> = names.into_iter().map(ident).collect();
                match names.as_slice() {
                    [one] => quote!(#cfg use #module::#one;),
                    _ => quote!(#cfg use #module::{#(#names),*};),
                }
            })
            .collect()
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().expect("a path has a last segment")
}

fn ident(name: &str) -> TokenStream {
    let ident = format_ident!("{}", name);
    quote!(#ident)
}
