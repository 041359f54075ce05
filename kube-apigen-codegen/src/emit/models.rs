//! The model emitter: one serde-ready Rust type per schema.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::doc_attrs;
use super::scope::Scope;
use super::values::default_value;
use crate::ir::{Field, Presence, Resource, StringEnum, Struct, Ty, TypeId, TypeKind};

pub fn emit(scope: &mut Scope, id: TypeId) -> TokenStream {
    let ty = scope.api.ty(id);
    let doc = doc_attrs(ty.doc.as_deref());
    let name = format_ident!("{}", ty.name);
    match &ty.kind {
        TypeKind::Struct(s) => {
            let definition = structure(scope, &name, s);
            let resource = s.resource.map(|resource| {
                // Kinds whose spec requires `metadata` (core/v1 Event) hold it as a plain field.
                let optional_metadata = s.fields.iter().any(|f| f.wire_name == "metadata" && f.presence.is_option());
                resource_impl(scope, &name, scope.api.resource(resource), optional_metadata)
            });
            quote! { #doc #definition #resource }
        }
        TypeKind::Enum(e) => {
            let definition = string_enum(scope, &name, e);
            quote! { #doc #definition }
        }
        TypeKind::Alias(target) => {
            let target = scope.rust_type(&target.ty);
            quote! { #doc pub type #name = #target; }
        }
        TypeKind::Runtime(_) => TokenStream::new(),
    }
}

fn structure(scope: &mut Scope, name: &proc_macro2::Ident, s: &Struct) -> TokenStream {
    let fields: Vec<TokenStream> = s.fields.iter().map(|field| struct_field(scope, field)).collect();
    let unknown_fields = s.unknown_fields.as_ref().map(|rust_name| {
        let field = format_ident!("{}", rust_name);
        let map = scope.rust_type(&Ty::Map(Box::new(crate::ir::FieldType::plain(Ty::Value))));
        quote! {
            /// Fields the schema does not declare, kept as sent (`x-kubernetes-preserve-unknown-fields`).
            pub #field: #map,
        }
    });
    let derive_default = (!s.has_defaults()).then(|| quote!(Default,));
    let defaults = s.has_defaults().then(|| default_impls(scope, name, s));
    let serialize = serialize_impl(scope, name, s);
    let deserialize = deserialize_impls(scope, name, s);
    quote! {
        #[derive(Clone, Debug, #derive_default PartialEq)]
        pub struct #name {
            #(#fields)*
            #unknown_fields
        }

        #defaults

        #serialize

        #deserialize
    }
}

/// `Serialize` as an object of the fields in declaration order, optional ones when set,
/// then the fields kept without being declared. Written out, as decoding is.
fn serialize_impl(scope: &mut Scope, name: &proc_macro2::Ident, s: &Struct) -> TokenStream {
    let (serialize, serializer) = (scope.import("serde::Serialize"), scope.import("serde::Serializer"));
    let ser = scope.import("kube_apigen::ser");
    let writes = s.fields.iter().map(|field| {
        let (rust, wire) = (format_ident!("{}", field.rust_name), &field.wire_name);
        let write = if field.presence.is_option() { quote!(optional) } else { quote!(field) };
        quote!(#ser::#write(&mut object, #wire, &self.#rust)?;)
    });
    let unknown_fields = s.unknown_fields.as_ref().map(|rust_name| {
        let field = format_ident!("{}", rust_name);
        quote!(#ser::unknown_fields(&mut object, &self.#field)?;)
    });
    quote! {
        impl #serialize for #name {
            fn serialize<S: #serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut object = serializer.serialize_map(None)?;
                #(#writes)*
                #unknown_fields
                #ser::end(object)
            }
        }
    }
}

/// `Deserialize` through `kube_apigen::de::Object`: a match from wire name to field, and one
/// from field to how its value is read (Go's `null` rules, structural defaults). Written
/// out because a derived `Deserialize` is the largest part of a model's build time.
fn deserialize_impls(scope: &mut Scope, name: &proc_macro2::Ident, s: &Struct) -> TokenStream {
    let (deserialize, deserializer) = (scope.import("serde::Deserialize"), scope.import("serde::Deserializer"));
    let (map_access, de) = (scope.import("serde::de::MapAccess"), scope.import("kube_apigen::de"));
    let type_name = name.to_string();
    let wire_names: Vec<&str> = s.fields.iter().map(|field| field.wire_name.as_str()).collect();
    let indices: Vec<_> = (0..s.fields.len()).map(proc_macro2::Literal::usize_unsuffixed).collect();
    let reads = s.fields.iter().map(|field| read_field(&de, field));
    let unknown_fields = s.unknown_fields.as_ref().map(|rust_name| {
        let field = format_ident!("{}", rust_name);
        let map = scope.rust_type(&Ty::Map(Box::new(crate::ir::FieldType::plain(Ty::Value))));
        quote! {
            fn unknown_fields(&mut self) -> Option<&mut #map> {
                Some(&mut self.#field)
            }
        }
    });
    quote! {
        impl<'de> #deserialize<'de> for #name {
            fn deserialize<D: #deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #de::object(deserializer)
            }
        }

        impl #de::Object for #name {
            const NAME: &'static str = #type_name;
            const FIELDS: &'static [&'static str] = &[#(#wire_names),*];

            fn field(key: &str) -> Option<usize> {
                match key {
                    #(#wire_names => Some(#indices),)*
                    _ => None,
                }
            }

            fn read_field<'de, A: #map_access<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
                match index {
                    #(#indices => #reads,)*
                    _ => Ok(()),
                }
            }

            #unknown_fields
        }
    }
}

/// How a field's value is read. Go decodes `null` anywhere as the zero value; so do
/// generated models, for required fields and for map values (validation then reports
/// what is missing), and a field with a structural default takes it for `null` unless
/// the schema allows `null`.
fn read_field(de: &TokenStream, field: &Field) -> TokenStream {
    let name = format_ident!("{}", field.rust_name);
    let is_map = matches!(field.ty.ty, Ty::Map(_)) && !field.boxed;
    let default = field.default.as_ref().filter(|default| default.null_takes_default);
    match (field.presence == Presence::Required, is_map, default) {
        (true, false, _) => quote!(#de::read_or_default(map, &mut self.#name)),
        (true, true, _) => quote!(#de::read_map(map, &mut self.#name)),
        (false, true, _) => quote!(#de::read_optional_map(map, &mut self.#name)),
        (false, false, Some(default)) => {
            let function = format_ident!("{}", default.function);
            quote!(#de::read_or(map, &mut self.#name, Self::#function))
        }
        (false, false, None) => quote!(#de::read(map, &mut self.#name)),
    }
}

/// The field's type as declared: `Option` unless required, boxed where the IR says.
fn declared_type(scope: &mut Scope, field: &Field) -> TokenStream {
    let mut ty = scope.rust_type(&field.ty.ty);
    if field.boxed {
        ty = quote!(Box<#ty>);
    }
    if field.presence.is_option() { quote!(Option<#ty>) } else { ty }
}

/// Structural defaulting: per field with a spec `default`, a function giving it; and
/// `Default`, which gives every field its default, so `T::default()` is what decoding
/// `{}` gives (decoding starts from it).
fn default_impls(scope: &mut Scope, name: &proc_macro2::Ident, s: &Struct) -> TokenStream {
    let mut functions = Vec::new();
    for field in &s.fields {
        let Some(default) = &field.default else { continue };
        let function = format_ident!("{}", default.function);
        let ty = declared_type(scope, field);
        let value = default_value(scope, field, &default.value);
        functions.push(quote! {
            fn #function() -> #ty {
                #value
            }
        });
    }
    let values = s.fields.iter().map(|field| {
        let rust = format_ident!("{}", field.rust_name);
        match &field.default {
            Some(default) => {
                let function = format_ident!("{}", default.function);
                quote!(#rust: Self::#function(),)
            }
            None if field.presence.is_option() => quote!(#rust: None,),
            None => quote!(#rust: Default::default(),),
        }
    });
    let unknown_fields = s.unknown_fields.as_ref().map(|rust_name| {
        let field = format_ident!("{}", rust_name);
        quote!(#field: Default::default(),)
    });
    quote! {
        /// The spec's `default` values, applied when a decoded object lacks the field.
        impl #name {
            #(#functions)*
        }

        impl Default for #name {
            /// Every field's default: what decoding `{}` gives.
            fn default() -> Self {
                Self {
                    #(#values)*
                    #unknown_fields
                }
            }
        }
    }
}

fn struct_field(scope: &mut Scope, field: &Field) -> TokenStream {
    let doc = doc_attrs(field.doc.as_deref());
    let name = format_ident!("{}", field.rust_name);
    let ty = declared_type(scope, field);
    quote! {
        #doc
        pub #name: #ty,
    }
}

/// A string enum whose unknown values survive a round trip in a catch-all variant.
fn string_enum(scope: &mut Scope, name: &proc_macro2::Ident, e: &StringEnum) -> TokenStream {
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
    let serialize = scope.import("serde::Serialize");
    let serializer = scope.import("serde::Serializer");
    let deserialize = scope.import("serde::Deserialize");
    let deserializer = scope.import("serde::Deserializer");
    let fmt = scope.import("std::fmt");
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

            /// The variant of a value this version of the API defines.
            fn known(value: &str) -> Option<Self> {
                match value {
                    #(#values => Some(Self::#variants),)*
                    _ => None,
                }
            }
        }

        #default_impl

        impl From<String> for #name {
            fn from(value: String) -> Self {
                Self::known(&value).unwrap_or(Self::#other(value))
            }
        }

        impl From<&str> for #name {
            fn from(value: &str) -> Self {
                Self::known(value).unwrap_or_else(|| Self::#other(value.to_owned()))
            }
        }

        impl #fmt::Display for #name {
            fn fmt(&self, f: &mut #fmt::Formatter<'_>) -> #fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl #serialize for #name {
            fn serialize<S: #serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> #deserialize<'de> for #name {
            fn deserialize<D: #deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                kube_apigen::de::string_enum(deserializer)
            }
        }
    }
}

/// The resource's description, and the model's link to it.
fn resource_impl(
    scope: &mut Scope,
    name: &proc_macro2::Ident,
    resource: &Resource,
    optional_metadata: bool,
) -> TokenStream {
    let info = format_ident!("{}", resource.info_static);
    let (trait_, resource_info) = (scope.import("kube_apigen::Resource"), scope.import("kube_apigen::ResourceInfo"));
    let description = resource_info_static(scope, resource);
    let k8s_openapi = scope.k8s_openapi().then(|| k8s_openapi_resource_impls(scope, name, resource, optional_metadata));
    quote! {
        #description

        impl #trait_ for #name {
            const INFO: &'static #resource_info = &#info;
        }

        #k8s_openapi
    }
}

/// k8s-openapi's resource traits, for models whose metadata is k8s-openapi's: with them,
/// kube-rs's blanket impl makes the model a `kube::Resource` (`Api<T>`, watchers,
/// controllers). An object without metadata reads as empty metadata.
fn k8s_openapi_resource_impls(
    scope: &mut Scope,
    name: &proc_macro2::Ident,
    resource: &Resource,
    optional_metadata: bool,
) -> TokenStream {
    let gvk = &resource.gvk;
    let (api_version, group, version, kind) = (gvk.api_version(), &gvk.group, &gvk.version, &gvk.kind);
    let (plural, list_kind) = (&resource.plural, &resource.list_kind);
    let resource_scope = match resource.scope {
        kube_apigen_core::Scope::Namespaced => quote!(k8s_openapi::NamespaceResourceScope),
        kube_apigen_core::Scope::Cluster => quote!(k8s_openapi::ClusterResourceScope),
    };
    let object_meta = scope.import("k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta");
    let (read, write) = if optional_metadata {
        let empty = scope.import("kube_apigen::k8s::empty_object_meta");
        (quote!(self.metadata.as_ref().unwrap_or(#empty())), quote!(self.metadata.get_or_insert_default()))
    } else {
        (quote!(&self.metadata), quote!(&mut self.metadata))
    };
    quote! {
        impl k8s_openapi::Resource for #name {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const KIND: &'static str = #kind;
            const VERSION: &'static str = #version;
            const URL_PATH_SEGMENT: &'static str = #plural;
            type Scope = #resource_scope;
        }

        impl k8s_openapi::ListableResource for #name {
            const LIST_KIND: &'static str = #list_kind;
        }

        impl k8s_openapi::Metadata for #name {
            type Ty = #object_meta;

            fn metadata(&self) -> &#object_meta {
                #read
            }

            fn metadata_mut(&mut self) -> &mut #object_meta {
                #write
            }
        }
    }
}

/// The `static` describing a resource: identity, discovery entry and printing.
fn resource_info_static(scope: &mut Scope, resource: &Resource) -> TokenStream {
    let info = format_ident!("{}", resource.info_static);
    let gvk = &resource.gvk;
    let (group, version, kind, plural, list_kind) =
        (&gvk.group, &gvk.version, &gvk.kind, &resource.plural, &resource.list_kind);
    let singular = &resource.singular;
    let scope_variant = super::variant(resource.scope);
    let scope_type = scope.import("kube_apigen::Scope");
    let (verbs, short_names, categories) = (&resource.verbs, &resource.short_names, &resource.categories);
    let subresources: Vec<TokenStream> = resource
        .subresources
        .iter()
        .map(|sub| {
            let (name, verbs) = (&sub.name, &sub.verbs);
            let kind = match &sub.other_kind {
                Some(gvk) => {
                    let (group, version, kind) = (&gvk.group, &gvk.version, &gvk.kind);
                    let kind_info = scope.import("kube_apigen::resource::KindInfo");
                    quote!(Some(#kind_info { group: #group, version: #version, kind: #kind }))
                }
                None => quote!(None),
            };
            let subresource_info = scope.import("kube_apigen::resource::SubresourceInfo");
            quote!(#subresource_info { name: #name, verbs: &[#(#verbs),*], kind: #kind })
        })
        .collect();
    let columns: Vec<TokenStream> = resource
        .columns
        .iter()
        .map(|c| {
            let (name, type_, format, description, json_path) =
                (&c.name, &c.type_, &c.format, &c.description, &c.json_path);
            let priority = proc_macro2::Literal::i32_unsuffixed(c.priority);
            let column = scope.import("kube_apigen::resource::Column");
            quote! {
                #column {
                    name: #name,
                    type_: #type_,
                    format: #format,
                    description: #description,
                    priority: #priority,
                    json_path: #json_path,
                }
            }
        })
        .collect();
    let scale = match &resource.scale {
        Some(paths) => {
            let (spec, status) = (&paths.spec_replicas, &paths.status_replicas);
            let selector = option(paths.label_selector.as_ref());
            let scale_paths = scope.import("kube_apigen::resource::ScalePaths");
            quote!(Some(#scale_paths { spec_replicas: #spec, status_replicas: #status, label_selector: #selector }))
        }
        None => quote!(None),
    };
    let deprecation_warning = option(resource.deprecation_warning.as_ref());
    let storage_version = resource.storage_version;
    let doc = format!(" How {kind} appears in discovery, errors and tables.");
    let resource_info = scope.import("kube_apigen::ResourceInfo");
    quote! {
        #[doc = #doc]
        pub static #info: #resource_info = #resource_info {
            group: #group,
            version: #version,
            kind: #kind,
            plural: #plural,
            singular: #singular,
            scope: #scope_type::#scope_variant,
            list_kind: #list_kind,
            verbs: &[#(#verbs),*],
            short_names: &[#(#short_names),*],
            categories: &[#(#categories),*],
            subresources: &[#(#subresources),*],
            columns: &[#(#columns),*],
            scale: #scale,
            deprecation_warning: #deprecation_warning,
            storage_version: #storage_version,
        };
    }
}

fn option(value: Option<&String>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}
