//! Shared operation types: query-parameter structs (decoded from the query string and
//! validated), path-parameter structs and the success-response enums.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::doc_attrs;
use super::scope::Scope;
use super::validation::parameter_checks;
use crate::ir::{FieldType, ParamSet, PathSet, ResponseSet, Ty};

/// `src/params.rs`: every query- and path-parameter struct.
pub fn params_file(scope: &mut Scope) -> TokenStream {
    let api = scope.api;
    let queries: Vec<TokenStream> = api.param_sets.iter().map(|set| query_struct(scope, set)).collect();
    let paths: Vec<TokenStream> = api.path_sets.iter().map(|set| path_struct(scope, set)).collect();
    quote! {
        //! Query- and path-parameter types, one per distinct set of parameters in the specs.
        #(#queries)*
        #(#paths)*
    }
}

/// `src/responses.rs`: one enum per distinct set of success status codes.
pub fn responses_file(scope: &mut Scope) -> TokenStream {
    let enums = scope.api.response_sets.iter().map(response_enum);
    quote! {
        //! Success responses of operations that answer with more than one status code.
        #(#enums)*
    }
}

fn response_enum(set: &ResponseSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let variants = set.variants.iter().map(|variant| {
        let (code, name) = (variant.code, format_ident!("{}", variant.name));
        let doc = format!(" `{code} {name}`");
        quote!(#[doc = #doc] #name(T),)
    });
    let arms = set.variants.iter().map(|variant| {
        let name = format_ident!("{}", variant.name);
        let code = proc_macro2::Literal::u16_unsuffixed(variant.code);
        quote!(Self::#name(value) => (#code, value),)
    });
    quote! {
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name<T> {
            #(#variants)*
        }

        impl<T> #name<T> {
            /// The status code and the body.
            pub fn into_parts(self) -> (u16, T) {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

fn path_struct(scope: &mut Scope, set: &PathSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let fields = set.params.iter().map(|param| {
        let field = format_ident!("{}", param.rust_name);
        let wire = &param.name;
        let rename = (param.rust_name != *wire).then(|| quote!(#[serde(rename = #wire)]));
        quote!(#rename pub #field: String,)
    });
    let doc = format!(
        " Path parameters: {}.",
        set.params.iter().map(|p| format!("`{}`", p.name)).collect::<Vec<_>>().join(", ")
    );
    let deserialize = scope.import("serde::Deserialize");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq, Eq, #deserialize)]
        pub struct #name {
            #(#fields)*
        }
    }
}

fn query_struct(scope: &mut Scope, set: &ParamSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let fields: Vec<TokenStream> = set
        .params
        .iter()
        .map(|param| {
            let field = format_ident!("{}", param.rust_name);
            let ty = scope.rust_type(&param.ty.ty);
            let doc = doc_attrs(param.doc.as_deref());
            let wire = &param.name;
            let rename = (param.rust_name != *wire).then(|| quote!(rename = #wire,));
            quote! {
                #doc
                #[serde(#rename skip_serializing_if = "Option::is_none")]
                pub #field: Option<#ty>,
            }
        })
        .collect();
    let (status, query) = (scope.import("kube_apigen::Status"), scope.import("kube_apigen::http::Query"));
    let decoders = set.params.iter().map(|param| decoder(&param.name, &param.rust_name, &param.ty));
    let checks: Vec<TokenStream> = set
        .params
        .iter()
        .filter_map(|param| {
            let checks = parameter_checks(scope, &param.ty);
            if checks.is_empty() {
                return None;
            }
            let (field, wire) = (format_ident!("{}", param.rust_name), &param.name);
            Some(quote! {
                if let Some(value) = &self.#field {
                    let path = path.field(#wire);
                    #checks
                }
            })
        })
        .collect();
    let combinations = list_options(scope, set);
    let error_list = scope.import("kube_apigen::field::ErrorList");
    let validate_body = if checks.is_empty() && combinations.is_empty() {
        quote!(#error_list::new())
    } else {
        let path = (!checks.is_empty()).then(|| {
            let path_type = scope.import("kube_apigen::field::Path");
            quote!(let path = #path_type::ROOT;)
        });
        quote! {
            let mut list = #error_list::new();
            let errors = &mut list;
            #path
            #(#checks)*
            #combinations
            list
        }
    };
    let serialize = scope.import("serde::Serialize");
    let dynamic_options = dynamic_options(scope, &name, set);
    quote! {
        /// Query parameters, decoded with Kubernetes' rules: unknown names are ignored, the
        /// first of repeated values counts (all of them for list parameters), an empty value
        /// leaves a parameter unset, booleans are false only for `0` and `false` (an empty
        /// one is true).
        /// Serializes with the wire names.
        #[derive(Clone, Debug, Default, PartialEq, #serialize)]
        pub struct #name {
            #(#fields)*
        }

        impl #name {
            /// Decodes the parameters; a malformed value is a 400 `BadRequest` naming it.
            pub fn from_query(query: #query<'_>) -> Result<Self, #status> {
                let mut params = Self::default();
                for (name, value) in query.iter() {
                    match name {
                        #(#decoders)*
                        _ => {}
                    }
                }
                Ok(params)
            }

            /// The parameters' rules from the spec and the combinations Kubernetes forbids.
            pub fn validate(&self) -> #error_list {
                #validate_body
            }
        }

        #dynamic_options
    }
}

/// The conversion into the options a JSON-level server reads (`kube_apigen::dynamic::Options`).
fn dynamic_options(scope: &mut Scope, name: &proc_macro2::Ident, set: &ParamSet) -> TokenStream {
    let options = scope.import("kube_apigen::dynamic::Options");
    let fields: Vec<TokenStream> = set
        .dynamic_options
        .iter()
        .filter_map(|&(index, field)| {
            let param = &set.params[index];
            let (source, field) = (format_ident!("{}", param.rust_name), format_ident!("{}", field));
            let value = match param.ty.ty {
                Ty::String => quote!(params.#source.clone()),
                Ty::I64 | Ty::Bool => quote!(params.#source),
                Ty::I32 => quote!(params.#source.map(i64::from)),
                // Options carries no other types.
                _ => return None,
            };
            Some(quote!(#field: #value,))
        })
        .collect();
    let (binding, rest) = match fields.len() {
        0 => (quote!(_params), quote!(#options::default())),
        n if n < kube_apigen_core::schema::DYNAMIC_OPTIONS.len() => {
            (quote!(params), quote!(#options { #(#fields)* ..#options::default() }))
        }
        _ => (quote!(params), quote!(#options { #(#fields)* })),
    };
    quote! {
        impl From<&#name> for #options {
            fn from(#binding: &#name) -> Self {
                #rest
            }
        }
    }
}

/// One `match` arm decoding a parameter's value.
fn decoder(name: &str, rust_name: &str, ty: &FieldType) -> TokenStream {
    let field = format_ident!("{}", rust_name);
    let parse = |ty: &Ty| match ty {
        Ty::Bool => quote!(kube_apigen::http::parse_bool(value)),
        Ty::I32 | Ty::I64 | Ty::F64 => quote!(kube_apigen::http::parse_int(#name, value)?),
        _ => quote!(value.to_owned()),
    };
    match &ty.ty {
        Ty::Vec(item) => {
            let item = parse(&item.ty);
            quote!(#name => params.#field.get_or_insert_with(Vec::new).push(#item),)
        }
        // Kubernetes reads an empty boolean as true, and other empty values as unset.
        Ty::Bool => {
            let value = parse(&Ty::Bool);
            quote!(#name if params.#field.is_none() => params.#field = Some(#value),)
        }
        scalar => {
            let value = parse(scalar);
            quote!(#name if params.#field.is_none() && !value.is_empty() => params.#field = Some(#value),)
        }
    }
}

/// The forbidden combinations of list and watch parameters, for sets that have `watch`.
fn list_options(scope: &mut Scope, set: &ParamSet) -> TokenStream {
    let Some(watch) = set.field("watch") else { return TokenStream::new() };
    let watch = format_ident!("{}", watch);
    let text = |name: &str| match set.field(name) {
        Some(field) => {
            let field = format_ident!("{}", field);
            quote!(self.#field.as_deref())
        }
        None => quote!(None),
    };
    let copy = |name: &str| match set.field(name) {
        Some(field) => {
            let field = format_ident!("{}", field);
            quote!(self.#field)
        }
        None => quote!(None),
    };
    let (continue_, resource_version, resource_version_match) =
        (text("continue"), text("resourceVersion"), text("resourceVersionMatch"));
    let (limit, send_initial_events) = (copy("limit"), copy("sendInitialEvents"));
    let rules = scope.import("kube_apigen::rules");
    quote! {
        #rules::list_options(
            #rules::ListOptions {
                watch: self.#watch == Some(true),
                limit: #limit,
                continue_: #continue_,
                resource_version: #resource_version,
                resource_version_match: #resource_version_match,
                send_initial_events: #send_initial_events,
            },
            errors,
        );
    }
}
