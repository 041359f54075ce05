//! How generated code names types: Rust type expressions for IR types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Api, FieldType, Ty, TypeId};

/// The Rust type for `ty` as written in a type file of `module` (types of the same module
/// through `super`, which re-exports them, others by their full crate path).
pub fn rust_type(api: &Api, ty: &Ty, module: &[String]) -> TokenStream {
    match ty {
        Ty::Bool => quote!(bool),
        Ty::I32 => quote!(i32),
        Ty::I64 => quote!(i64),
        Ty::F64 => quote!(f64),
        Ty::String => quote!(String),
        Ty::Value => quote!(serde_json::Value),
        Ty::Support(support) => {
            let name = format_ident!("{}", support.name());
            quote!(support::#name)
        }
        Ty::Named(id) => named(api, *id, module),
        Ty::Vec(item) => {
            let item = field_type(api, item, module);
            quote!(Vec<#item>)
        }
        Ty::Map(value) => {
            let value = field_type(api, value, module);
            quote!(std::collections::BTreeMap<String, #value>)
        }
    }
}

fn field_type(api: &Api, ty: &FieldType, module: &[String]) -> TokenStream {
    rust_type(api, &ty.ty, module)
}

/// A named type as seen from `module`.
pub fn named(api: &Api, id: TypeId, module: &[String]) -> TokenStream {
    let ty = &api.types[id];
    if let crate::ir::TypeKind::Support(support) = ty.kind {
        let name = format_ident!("{}", support.name());
        return quote!(support::#name);
    }
    let name = format_ident!("{}", ty.name);
    if ty.module == module {
        return quote!(super::#name);
    }
    let segments = ty.module.iter().map(|m| format_ident!("{}", m));
    quote!(crate #(:: #segments)* :: #name)
}
