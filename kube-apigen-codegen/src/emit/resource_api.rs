//! A resource's `<kind>_api.rs`: its description (`ResourceInfo`), its trait with one
//! async method per operation, the trait's implementation for JSON-level servers
//! (feature `dynamic`), and the axum handlers and routes that do the HTTP work around
//! the trait.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::doc_attrs;
use super::features::Feature;
use super::scope::Scope;
use crate::ir::{Method, Resource, Role, Route, RouteKind, Success, Ty};
use kube_apigen_core::schema::PatchType;

/// The items of a resource's API file.
pub fn resource_file(scope: &mut Scope, resource: &Resource) -> TokenStream {
    let info = scope.import(&format!("super::{}", resource.info_static));
    let trait_item = trait_item(scope, resource, &info);
    // Only JSON-level servers (the `dynamic` feature) use the adapter.
    let dynamic = scope.gated(Feature::Dynamic, |scope| dynamic_impl(scope, resource, &info));
    let routes = routes(scope, resource);
    let handlers: Vec<TokenStream> = resource.methods.iter().map(|m| handler(scope, resource, &info, m)).collect();
    quote! {
        #trait_item

        #dynamic

        #routes

        #(#handlers)*
    }
}

fn option(value: Option<&String>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

fn trait_item(scope: &mut Scope, resource: &Resource, info: &TokenStream) -> TokenStream {
    let trait_name = format_ident!("{}", resource.trait_name);
    let (context, status) = (scope.import("kube_apigen::http::Context"), scope.import("kube_apigen::Status"));
    let future = scope.import("std::future::Future");
    let methods: Vec<TokenStream> = resource
        .methods
        .iter()
        .map(|method| {
            let doc = doc_attrs(method.doc.as_deref());
            // The default body reads none of its arguments.
            let (name, params, result) = signature(scope, resource, method, "_");
            let verb = method.role.verb().as_str();
            quote! {
                #doc
                fn #name(&self, _context: #context, #(#params),*) -> impl #future<Output = Result<#result, #status>> + Send {
                    std::future::ready(Err(kube_apigen::http::not_implemented(&#info, #verb)))
                }
            }
        })
        .collect();
    let kind = &resource.gvk.kind;
    let doc = format!(
        " The operations on {kind}. Every method answers 405 `MethodNotAllowed` unless implemented, so a server implements only what it supports."
    );
    quote! {
        #[doc = #doc]
        pub trait #trait_name: Send + Sync + 'static {
            #(#methods)*
        }
    }
}

/// The trait implemented for any JSON-level server (`kube_apigen::dynamic::Dynamic<S>`).
fn dynamic_impl(scope: &mut Scope, resource: &Resource, info: &TokenStream) -> TokenStream {
    let api = scope.api;
    let trait_name = format_ident!("{}", resource.trait_name);
    let (context, status) = (scope.import("kube_apigen::http::Context"), scope.import("kube_apigen::Status"));
    let dynamic = scope.import("kube_apigen::dynamic");
    let methods: Vec<TokenStream> = resource
        .methods
        .iter()
        .map(|method| {
            let (name, params, result) = signature(scope, resource, method, "");
            // The variant's name, as `derive(Debug)` writes it.
            let verb = format_ident!("{}", format!("{:?}", method.role.verb()));
            let subresource = option(method.subresource.as_ref());
            let path_set = method.path_set.map(|set| api.path_set(set));
            let path_field =
                |name: &str| path_set.and_then(|set| set.field(name)).map(|field| format_ident!("{}", field));
            let namespace = match (method.role, path_field("namespace")) {
                (Role::Watch, _) => quote!(namespace),
                (_, Some(field)) => quote!(namespace: Some(path.#field)),
                (_, None) => quote!(namespace: None),
            };
            let name_value = match path_field("name") {
                Some(field) => quote!(Some(path.#field)),
                None => quote!(None),
            };
            let options = match method.param_set {
                Some(_) => quote!(#dynamic::Options::from(&params)),
                None => quote!(#dynamic::Options::default()),
            };
            let (body, patch) = match method.role {
                Role::Patch => (quote!(None), quote!(Some(body))),
                Role::Delete | Role::DeleteCollection if method.body.is_some() => {
                    (quote!(body.as_ref().map(#dynamic::to_json).transpose()?), quote!(None))
                }
                _ if method.body.is_some() => (quote!(Some(#dynamic::to_json(&body)?)), quote!(None)),
                _ => (quote!(None), quote!(None)),
            };
            let answer = match (method.role, method.success) {
                (Role::Watch, _) => quote!(#dynamic::watch(response)),
                (_, Success::OneOf(set)) => {
                    let set = api.response_set(set);
                    let enum_name = scope.import(&format!("crate::responses::{}", set.name));
                    let arms = set.variants.iter().skip(1).map(|variant| {
                        let (code, name) =
                            (proc_macro2::Literal::u16_unsuffixed(variant.code), format_ident!("{}", variant.name));
                        quote!(#code => #enum_name::#name(value),)
                    });
                    let first = format_ident!("{}", set.variants[0].name);
                    quote! {
                        let (code, value) = #dynamic::object(response)?;
                        Ok(match code {
                            #(#arms)*
                            _ => #enum_name::#first(value),
                        })
                    }
                }
                (_, Success::Code(_)) => quote!(#dynamic::object(response).map(|(_, value)| value)),
            };
            quote! {
                async fn #name(&self, context: #context, #(#params),*) -> Result<#result, #status> {
                    let request = #dynamic::Request {
                        verb: #dynamic::Verb::#verb,
                        resource: &#info,
                        subresource: #subresource,
                        #namespace,
                        name: #name_value,
                        options: #options,
                        body: #body,
                        patch: #patch,
                    };
                    let response = self.0.handle(context, request).await?;
                    #answer
                }
            }
        })
        .collect();
    quote! {
        impl<S: #dynamic::DynamicApi> #trait_name for #dynamic::Dynamic<S> {
            #(#methods)*
        }
    }
}

/// A method's name, its arguments after `context` (each name prefixed with `prefix`), and
/// its result type.
fn signature(
    scope: &mut Scope,
    resource: &Resource,
    method: &Method,
    prefix: &str,
) -> (Ident, Vec<TokenStream>, TokenStream) {
    let params = arguments(scope, method)
        .into_iter()
        .map(|(name, ty)| {
            let name = format_ident!("{prefix}{name}");
            quote!(#name: #ty)
        })
        .collect();
    (format_ident!("{}", method.name), params, result_type(scope, resource, method))
}

/// The Rust type of a method's successful result.
fn result_type(scope: &mut Scope, resource: &Resource, method: &Method) -> TokenStream {
    if method.role == Role::Watch {
        let item = scope.named(resource.type_id);
        let stream = scope.import("kube_apigen::http::watch::WatchStream");
        return quote!(#stream<#item>);
    }
    let value = match &method.response {
        Some(ty) => scope.rust_type(ty),
        None => scope.import("kube_apigen::Status"),
    };
    match method.success {
        Success::OneOf(set) => {
            let set = scope.import(&format!("crate::responses::{}", scope.api.response_set(set).name));
            quote!(#set<#value>)
        }
        Success::Code(_) => value,
    }
}

/// The arguments after `context`: path, query parameters and body, as (name, type).
fn arguments(scope: &mut Scope, method: &Method) -> Vec<(Ident, TokenStream)> {
    let api = scope.api;
    let mut args = Vec::new();
    if method.role == Role::Watch {
        args.push((format_ident!("namespace"), quote!(Option<String>)));
    } else if let Some(set) = method.path_set {
        let set = scope.import(&format!("crate::params::{}", api.path_set(set).name));
        args.push((format_ident!("path"), set));
    }
    if let Some(set) = method.param_set {
        let set = scope.import(&format!("crate::params::{}", api.param_set(set).name));
        args.push((format_ident!("params"), set));
    }
    if method.role == Role::Patch {
        args.push((format_ident!("body"), scope.import("kube_apigen::http::Patch")));
    } else if let Some(body) = &method.body {
        let body = scope.rust_type(body);
        let body =
            if matches!(method.role, Role::Delete | Role::DeleteCollection) { quote!(Option<#body>) } else { body };
        args.push((format_ident!("body"), body));
    }
    args
}

/// `.route(path, get(handler).post(handler))` for every path of the resource.
fn routes(scope: &mut Scope, resource: &Resource) -> TokenStream {
    let mut by_path: BTreeMap<&str, Vec<(&str, Ident)>> = BTreeMap::new();
    for route in resource.methods.iter().flat_map(|m| &m.routes) {
        by_path.entry(&route.path).or_default().push((route.method.name(), format_ident!("{}", route.handler)));
    }
    let routes: Vec<TokenStream> = by_path
        .iter()
        .map(|(path, handlers)| {
            let ((first_method, first_handler), rest) = handlers.split_first().expect("a path has a handler");
            let first = scope.import(&format!("kube_apigen::axum::routing::{first_method}"));
            // Further methods chain on the first's method router: `.post(handler)`.
            let rest = rest.iter().map(|(method, handler)| {
                let method = format_ident!("{}", method);
                quote!(.#method(#handler::<S>))
            });
            quote!(.route(#path, #first(#first_handler::<S>) #(#rest)*))
        })
        .collect();
    let trait_name = format_ident!("{}", resource.trait_name);
    let (router, state) = (scope.import("kube_apigen::axum::Router"), scope.import("kube_apigen::http::ApiState"));
    quote! {
        /// Every path of the resource, for a server implementing its trait.
        pub fn routes<S: #trait_name>() -> #router<#state<S>> {
            #router::new() #(#routes)*
        }
    }
}

fn handler(scope: &mut Scope, resource: &Resource, info: &TokenStream, method: &Method) -> TokenStream {
    if method.role == Role::Watch {
        let mut routes: Vec<&Route> = method.routes.iter().collect();
        routes.dedup_by(|a, b| a.handler == b.handler);
        return routes.into_iter().map(|route| watch_handler(scope, resource, info, method, route)).collect();
    }
    let api = scope.api;
    let name = format_ident!("{}", method.routes[0].handler);
    let trait_name = format_ident!("{}", resource.trait_name);
    let method_name = format_ident!("{}", method.name);
    let options = method.role.options_kind();
    let param_set = method.param_set.map(|set| api.param_set(set));
    let param = |name: &str| param_set.and_then(|set| set.field(name)).map(|field| format_ident!("{}", field));
    let decode_params = param_set.map(|set| {
        let set = scope.import(&format!("crate::params::{}", set.name));
        quote!(let params = #set::from_query(call.query())?;)
    });
    let check_params = param_set.map(|_| quote!(call.check_options(#options, params.validate())?;));
    let args: Vec<Ident> = arguments(scope, method).into_iter().map(|(name, _)| name).collect();
    let reply = reply(scope, method);

    let body = match method.role {
        Role::Watch => unreachable!("watch handlers are emitted by watch_handler"),
        Role::List if method.routes.iter().any(|r| r.kind == RouteKind::ListOrWatch) => {
            let namespace = match method.path_set.and_then(|set| api.path_set(set).field("namespace")) {
                Some(field) => {
                    let field = format_ident!("{}", field);
                    quote!(Some(path.#field.clone()))
                }
                None => quote!(None),
            };
            let watch = param("watch").expect("a list-or-watch route has a watch parameter");
            let timeout = match param("timeoutSeconds") {
                Some(field) => quote!(params.#field),
                None => quote!(None),
            };
            quote! {
                #decode_params
                #check_params
                if params.#watch == Some(true) {
                    let timeout = #timeout;
                    let events = state.api.watch(call.context(), #namespace, params).await?;
                    return call.watch(events, timeout);
                }
                let value = state.api.#method_name(call.context(), #(#args),*).await?;
                #reply
            }
        }
        Role::Patch => {
            let patch_type = scope.import("kube_apigen::http::PatchType");
            let allowed = method.patch_types.iter().map(|t| match t {
                PatchType::Json => quote!(#patch_type::Json),
                PatchType::Merge => quote!(#patch_type::Merge),
                PatchType::StrategicMerge => quote!(#patch_type::StrategicMerge),
                PatchType::Apply => quote!(#patch_type::Apply),
            });
            // The options come first, as in Kubernetes: `force` and `fieldManager` depend on
            // the patch type, which the Content-Type names before the body is decoded.
            let field_manager = match param("fieldManager") {
                Some(field) => quote!(params.#field.as_deref()),
                None => quote!(Some("")),
            };
            let apply_options = param("force").map(|force| {
                quote! {
                    let is_apply = call.patch_type() == Some(#patch_type::Apply);
                    kube_apigen::rules::patch_options(params.#force, #field_manager, is_apply, &mut errors);
                }
            });
            let check = param_set.map(|_| {
                quote! {
                    let mut errors = params.validate();
                    #apply_options
                    call.check_options(#options, errors)?;
                }
            });
            quote! {
                #decode_params
                #check
                let body = call.patch(&[#(#allowed),*])?;
                let value = state.api.#method_name(call.context(), #(#args),*).await?;
                #reply
            }
        }
        Role::Delete | Role::DeleteCollection => {
            let decode_body = method.body.as_ref().map(|body| {
                let ty = scope.rust_type(body);
                quote! {
                    let body: Option<#ty> = call.optional_body()?;
                    if let Some(options) = &body {
                        call.check_options("DeleteOptions", kube_apigen::Validate::validate(options))?;
                    }
                }
            });
            quote! {
                #decode_params
                #check_params
                #decode_body
                let value = state.api.#method_name(call.context(), #(#args),*).await?;
                #reply
            }
        }
        _ => {
            let decode_body = method.body.as_ref().map(|body| {
                let ty = scope.rust_type(body);
                let validate = matches!(body, Ty::Named(_)).then(|| quote!(call.validate(&body, None)?;));
                quote! {
                    let body: #ty = call.body()?;
                    #validate
                }
            });
            quote! {
                #decode_params
                #check_params
                #decode_body
                let value = state.api.#method_name(call.context(), #(#args),*).await?;
                #reply
            }
        }
    };
    let path = method.path_set.map(|set| {
        let path_params = scope.import("kube_apigen::http::PathParams");
        let set = scope.import(&format!("crate::params::{}", api.path_set(set).name));
        quote!(#path_params(path): #path_params<#set>,)
    });
    // Decoding a body consumes it, which needs the call mutably.
    let call = if method.body.is_some() || method.role == Role::Patch { quote!(mut call) } else { quote!(call) };
    let (state_type, api_state, request, returns) = handler_types(scope);
    quote! {
        fn #name<S: #trait_name>(
            #state_type(state): #state_type<#api_state<S>>,
            #path
            request: #request,
        ) -> #returns {
            kube_apigen::http::serve(request, &state.config, &#info, async move |#call| {
                #body
            })
        }
    }
}

/// The types every handler's signature names: axum's `State` and `Request`, the router
/// state, and what it returns: the future of the response. Handlers are not `async fn`s,
/// whose futures would keep their arguments beside `serve`'s future (axum boxes the
/// future for every request).
fn handler_types(scope: &mut Scope) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let (future, response) =
        (scope.import("std::future::Future"), scope.import("kube_apigen::axum::response::Response"));
    (
        scope.import("kube_apigen::axum::extract::State"),
        scope.import("kube_apigen::http::ApiState"),
        scope.import("kube_apigen::axum::extract::Request"),
        quote!(impl #future<Output = #response> + Send),
    )
}

/// A watch handler: of the list path's parameters alone, or of the deprecated /watch/
/// paths, which name a namespace and, with a `{name}`, one object.
fn watch_handler(
    scope: &mut Scope,
    resource: &Resource,
    info: &TokenStream,
    method: &Method,
    route: &Route,
) -> TokenStream {
    let api = scope.api;
    let name = format_ident!("{}", route.handler);
    let trait_name = format_ident!("{}", resource.trait_name);
    let with_path = route.path.contains('{');
    let param_set = method.param_set.map(|set| api.param_set(set));
    let param = |name: &str| param_set.and_then(|set| set.field(name)).map(|field| format_ident!("{}", field));
    let name_selector = param("fieldSelector").filter(|_| with_path).map(|selector| {
        quote! {
            if let Some(name) = path.get("name") {
                params.#selector = Some(kube_apigen::http::watch::one_object_selector(params.#selector.take(), name)?);
            }
        }
    });
    let binding = if name_selector.is_some() { quote!(let mut params) } else { quote!(let params) };
    let decode = param_set.map(|set| {
        let set = scope.import(&format!("crate::params::{}", set.name));
        quote!(#binding = #set::from_query(call.query())?;)
    });
    let check = param_set.map(|_| quote!(call.check_options("ListOptions", params.validate())?;));
    let timeout = match param("timeoutSeconds") {
        Some(field) => quote!(params.#field),
        None => quote!(None),
    };
    let params_arg = param_set.map(|_| quote!(, params));
    let (path_arg, namespace) = if with_path {
        let path_params = scope.import("kube_apigen::http::PathParams");
        let map = scope.import("std::collections::BTreeMap");
        (quote!(#path_params(path): #path_params<#map<String, String>>,), quote!(path.get("namespace").cloned()))
    } else {
        (TokenStream::new(), quote!(None))
    };
    let (state_type, api_state, request, returns) = handler_types(scope);
    quote! {
        fn #name<S: #trait_name>(
            #state_type(state): #state_type<#api_state<S>>,
            #path_arg
            request: #request,
        ) -> #returns {
            kube_apigen::http::serve(request, &state.config, &#info, async move |call| {
                #decode
                #name_selector
                #check
                let timeout = #timeout;
                let events = state.api.watch(call.context(), #namespace #params_arg).await?;
                call.watch(events, timeout)
            })
        }
    }
}

/// Encodes `value`, the method's result, with the status code it stands for.
fn reply(scope: &mut Scope, method: &Method) -> TokenStream {
    let status_code = scope.import("kube_apigen::axum::http::StatusCode");
    match method.success {
        Success::OneOf(_) => quote! {
            let (code, value) = value.into_parts();
            call.reply(#status_code::from_u16(code).unwrap_or_default(), &value)
        },
        Success::Code(200) => quote!(call.reply(#status_code::OK, &value)),
        Success::Code(code) => {
            let code = proc_macro2::Literal::u16_unsuffixed(code);
            quote!(call.reply(#status_code::from_u16(#code).unwrap_or_default(), &value))
        }
    }
}
