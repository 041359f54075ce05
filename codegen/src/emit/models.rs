//! The model emitter: one serde-ready Rust type per schema.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::doc_attrs;
use super::paths::rust_type;
use crate::ir::{Api, Field, Resource, StringEnum, Struct, TypeId, TypeKind};

pub fn emit(api: &Api, id: TypeId) -> TokenStream {
    let ty = &api.types[id];
    let doc = doc_attrs(ty.doc.as_deref());
    let name = format_ident!("{}", ty.name);
    match &ty.kind {
        TypeKind::Struct(s) => {
            let definition = structure(api, id, s);
            let resource = api.resources.iter().find(|r| r.type_id == id).map(|r| resource_impl(&ty.name, r));
            quote! { #doc #definition #resource }
        }
        TypeKind::Enum(e) => {
            let definition = string_enum(&name, e);
            quote! { #doc #definition }
        }
        TypeKind::Alias(target) => {
            let target = rust_type(api, &target.ty, &ty.module);
            quote! { #doc pub type #name = #target; }
        }
        TypeKind::Support(_) => TokenStream::new(),
    }
}

fn structure(api: &Api, id: TypeId, s: &Struct) -> TokenStream {
    let ty = &api.types[id];
    let name = format_ident!("{}", ty.name);
    let fields = s.fields.iter().map(|field| struct_field(api, &ty.name, &ty.module, field));
    let unknown_fields = s.unknown_fields.as_ref().map(|rust_name| {
        let name = format_ident!("{}", rust_name);
        quote! {
            /// Fields the schema does not declare, kept as sent (`x-kubernetes-preserve-unknown-fields`).
            #[serde(flatten)]
            pub #name: std::collections::BTreeMap<String, serde_json::Value>,
        }
    });
    let defaults: Vec<TokenStream> = s.fields.iter().filter_map(|field| default_fn(api, &ty.module, field)).collect();
    let defaults = (!defaults.is_empty()).then(|| {
        quote! {
            /// The spec's `default` values, applied when a decoded object lacks the field.
            impl #name {
                #(#defaults)*
            }
        }
    });
    quote! {
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct #name {
            #(#fields)*
            #unknown_fields
        }

        #defaults
    }
}

/// The field's type as declared: `Option` unless required, boxed where the IR says.
fn declared_type(api: &Api, module: &[String], field: &Field) -> TokenStream {
    let mut ty = rust_type(api, &field.ty.ty, module);
    if field.boxed {
        ty = quote!(Box<#ty>);
    }
    if field.required { ty } else { quote!(Option<#ty>) }
}

fn default_fn_name(field: &Field) -> proc_macro2::Ident {
    format_ident!("default_{}", field.rust_name.trim_end_matches('_'))
}

fn null_default_fn_name(field: &Field) -> proc_macro2::Ident {
    format_ident!("deserialize_{}", field.rust_name.trim_end_matches('_'))
}

/// Whether `null` takes the default too: the API server drops a `null` the schema does
/// not allow (`nullable`) before defaulting.
fn null_takes_default(field: &Field) -> bool {
    field.ty.rules.default.is_some() && !field.ty.rules.nullable && !matches!(field.ty.ty, crate::ir::Ty::Map(_))
}

/// Structural defaulting: a function giving the field's spec `default`, which serde calls
/// when the field is absent, and one decoding `null` as that default.
fn default_fn(api: &Api, module: &[String], field: &Field) -> Option<TokenStream> {
    let value = field.ty.rules.default.as_ref()?;
    let json = value.to_string();
    let (name, ty) = (default_fn_name(field), declared_type(api, module, field));
    let null = null_takes_default(field).then(|| {
        let null_name = null_default_fn_name(field);
        quote! {
            fn #null_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<#ty, D::Error> {
                support::de::null_as(deserializer, Self::#name)
            }
        }
    });
    Some(quote! {
        fn #name() -> #ty {
            support::de::spec_default(#json)
        }
        #null
    })
}

fn struct_field(api: &Api, type_name: &str, module: &[String], field: &Field) -> TokenStream {
    let doc = doc_attrs(field.doc.as_deref());
    let name = format_ident!("{}", field.rust_name);
    let ty = declared_type(api, module, field);
    let mut attributes = Vec::new();
    if field.rust_name != field.wire_name {
        let wire = &field.wire_name;
        attributes.push(quote!(rename = #wire));
    }
    attributes.push(match field.ty.rules.default {
        Some(_) => {
            let path = format!("{type_name}::{}", default_fn_name(field));
            quote!(default = #path)
        }
        None => quote!(default),
    });
    if !field.required {
        attributes.push(quote!(skip_serializing_if = "Option::is_none"));
    }
    // Go decodes `null` anywhere as the zero value; so do generated models, for required
    // fields and for map values (validation then reports what is missing).
    let is_map = matches!(field.ty.ty, crate::ir::Ty::Map(_)) && !field.boxed;
    let decode = match (field.required, is_map) {
        (true, false) => Some("support::de::null_as_default".to_owned()),
        (true, true) => Some("support::de::map_null_values_as_default".to_owned()),
        (false, false) if null_takes_default(field) => Some(format!("{type_name}::{}", null_default_fn_name(field))),
        (false, false) => None,
        (false, true) => Some("support::de::optional_map_null_values_as_default".to_owned()),
    };
    if let Some(path) = decode {
        attributes.push(quote!(deserialize_with = #path));
    }
    quote! {
        #doc
        #[serde(#(#attributes),*)]
        pub #name: #ty,
    }
}

/// A string enum whose unknown values survive a round trip in a catch-all variant.
fn string_enum(name: &proc_macro2::Ident, e: &StringEnum) -> TokenStream {
    let variants: Vec<_> = e.variants.iter().map(|v| format_ident!("{}", v.rust_name)).collect();
    let values: Vec<&str> = e.variants.iter().map(|v| v.value.as_str()).collect();
    let variant_docs = values.iter().map(|value| {
        let doc = if value.is_empty() { " The empty string.".to_owned() } else { format!(" `{value}`") };
        quote!(#[doc = #doc])
    });
    let other = format_ident!("{}", e.other_variant);
    let empty_variant = e.variants.iter().position(|v| v.value.is_empty());
    let default_attr = variants.iter().enumerate().map(|(i, _)| (Some(i) == empty_variant).then(|| quote!(#[default])));
    let (derive_default, default_impl) = match empty_variant {
        Some(_) => (quote!(Default,), None),
        None => (
            quote!(),
            Some(quote! {
                impl Default for #name {
                    /// The empty string, Go's zero value for a string enum.
                    fn default() -> Self {
                        Self::#other(String::new())
                    }
                }
            }),
        ),
    };
    quote! {
        #[derive(Clone, Debug, #derive_default PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name {
            #(#variant_docs #default_attr #variants,)*
            /// A value this version of the API does not know, kept as sent.
            #other(String),
        }

        impl #name {
            /// The values this version of the API defines.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The value as sent on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#variants => #values,)*
                    Self::#other(value) => value,
                }
            }

            /// Whether the value is one this version of the API defines.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::#other(_))
            }
        }

        #default_impl

        impl From<String> for #name {
            fn from(value: String) -> Self {
                match value.as_str() {
                    #(#values => Self::#variants,)*
                    _ => Self::#other(value),
                }
            }
        }

        impl From<&str> for #name {
            fn from(value: &str) -> Self {
                match value {
                    #(#values => Self::#variants,)*
                    _ => Self::#other(value.to_owned()),
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map(Self::from)
            }
        }
    }
}

/// The resource's identity constants.
fn resource_impl(type_name: &str, resource: &Resource) -> TokenStream {
    let name = format_ident!("{}", type_name);
    let gvk = &resource.gvk;
    let (group, version, kind) = (&gvk.group, &gvk.version, &gvk.kind);
    let api_version = gvk.api_version();
    let plural = &resource.plural;
    let list_kind = &resource.list_kind;
    let scope = if resource.namespaced { quote!(Namespaced) } else { quote!(Cluster) };
    quote! {
        impl support::Resource for #name {
            const GROUP: &'static str = #group;
            const VERSION: &'static str = #version;
            const API_VERSION: &'static str = #api_version;
            const KIND: &'static str = #kind;
            const PLURAL: &'static str = #plural;
            const SCOPE: support::Scope = support::Scope::#scope;
            const LIST_KIND: &'static str = #list_kind;
        }
    }
}
