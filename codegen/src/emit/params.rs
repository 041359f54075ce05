//! Shared operation types: query-parameter structs (decoded from the query string and
//! validated), path-parameter structs and the success-response enums.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::doc_attrs;
use super::paths::rust_type;
use super::validation::parameter_checks;
use crate::build::{reason_phrase, snake_case};
use crate::ir::{Api, FieldType, ParamSet, PathSet, ResponseSet, Ty};

/// `src/params.rs`: every query- and path-parameter struct.
pub fn params_file(api: &Api) -> TokenStream {
    let queries = api.server.param_sets.iter().map(|set| query_struct(api, set));
    let paths = api.server.path_sets.iter().map(path_struct);
    quote! {
        //! Query- and path-parameter types, one per distinct set of parameters in the specs.
        #(#queries)*
        #(#paths)*
    }
}

/// `src/responses.rs`: one enum per distinct set of success status codes.
pub fn responses_file(api: &Api) -> TokenStream {
    let enums = api.server.response_sets.iter().map(response_enum);
    quote! {
        //! Success responses of operations that answer with more than one status code.
        #(#enums)*
    }
}

fn response_enum(set: &ResponseSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let variants = set.codes.iter().map(|code| {
        let variant = format_ident!("{}", reason_phrase(*code));
        let doc = format!(" `{code} {}`", reason_phrase(*code));
        quote!(#[doc = #doc] #variant(T),)
    });
    let arms = set.codes.iter().map(|code| {
        let variant = format_ident!("{}", reason_phrase(*code));
        quote!(Self::#variant(value) => (#code, value),)
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

fn path_struct(set: &PathSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let fields = set.params.iter().map(|param| {
        let field = format_ident!("{}", snake_case(param));
        let rename = (field != param.as_str()).then(|| quote!(#[serde(rename = #param)]));
        quote!(#rename pub #field: String,)
    });
    let doc =
        format!(" Path parameters: {}.", set.params.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "));
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
        pub struct #name {
            #(#fields)*
        }
    }
}

fn query_struct(api: &Api, set: &ParamSet) -> TokenStream {
    let name = format_ident!("{}", set.name);
    let fields = set.params.iter().map(|param| {
        let field = format_ident!("{}", snake_case(&param.name));
        let ty = rust_type(api, &param.ty.ty, &[]);
        let doc = doc_attrs(param.doc.as_deref());
        let wire = &param.name;
        let rename = (field != wire.as_str()).then(|| quote!(rename = #wire,));
        quote! {
            #doc
            #[serde(#rename skip_serializing_if = "Option::is_none")]
            pub #field: Option<#ty>,
        }
    });
    let decoders = set.params.iter().map(|param| decoder(&param.name, &param.ty));
    let checks = set.params.iter().map(|param| {
        let field = format_ident!("{}", snake_case(&param.name));
        let wire = &param.name;
        let checks = parameter_checks(api, &param.ty);
        if checks.is_empty() {
            return TokenStream::new();
        }
        quote! {
            if let Some(value) = &self.#field {
                let path = path.field(#wire);
                #checks
            }
        }
    });
    let checks: Vec<TokenStream> = checks.collect();
    let combinations = list_options(set);
    let validate_body = if checks.iter().all(TokenStream::is_empty) && combinations.is_empty() {
        quote!(support::validation::ErrorList::new())
    } else {
        let path = checks.iter().any(|c| !c.is_empty()).then(|| quote!(let path = support::validation::Path::ROOT;));
        quote! {
            let mut list = support::validation::ErrorList::new();
            let errors = &mut list;
            #path
            #(#checks)*
            #combinations
            list
        }
    };
    quote! {
        /// Query parameters, decoded with Kubernetes' rules: unknown names are ignored, the
        /// first of repeated values counts (all of them for list parameters), an empty value
        /// leaves a parameter unset, booleans are false only for `0` and `false` (an empty
        /// one is true).
        /// Serializes with the wire names.
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
        pub struct #name {
            #(#fields)*
        }

        impl #name {
            /// Decodes the parameters; a malformed value is a 400 `BadRequest` naming it.
            pub fn from_query(query: support::http::Query<'_>) -> Result<Self, support::Status> {
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
            pub fn validate(&self) -> support::validation::ErrorList {
                #validate_body
            }
        }
    }
}

/// One `match` arm decoding a parameter's value.
fn decoder(name: &str, ty: &FieldType) -> TokenStream {
    let field = format_ident!("{}", snake_case(name));
    let parse = |ty: &Ty| match ty {
        Ty::Bool => quote!(support::http::parse_bool(value)),
        Ty::I32 | Ty::I64 | Ty::F64 => quote!(support::http::parse_int(#name, value)?),
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
fn list_options(set: &ParamSet) -> TokenStream {
    let has = |name: &str| set.params.iter().any(|p| p.name == name);
    if !has("watch") {
        return TokenStream::new();
    }
    let text = |name: &str| {
        let field = format_ident!("{}", snake_case(name));
        if has(name) { quote!(self.#field.as_deref()) } else { quote!(None) }
    };
    let copy = |name: &str| {
        let field = format_ident!("{}", snake_case(name));
        if has(name) { quote!(self.#field) } else { quote!(None) }
    };
    let (continue_, resource_version, resource_version_match) =
        (text("continue"), text("resourceVersion"), text("resourceVersionMatch"));
    let (limit, send_initial_events) = (copy("limit"), copy("sendInitialEvents"));
    quote! {
        support::rules::list_options(
            support::rules::ListOptions {
                watch: self.watch == Some(true),
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
