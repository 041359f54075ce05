//! The handler emitter: per resource a trait with one async method per operation, the
//! axum handlers that do the HTTP work around it, and routers per resource, per
//! group/version and for the whole crate.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::doc_attrs;
use super::paths::rust_type;
use crate::ir::{Api, GroupVersion, Method, ResourceApi, Role, Route, RouteKind, Ty};

/// Trait, handlers and routes of one resource (`<kind>_api.rs`).
pub fn resource_file(api: &Api, resource_api: &ResourceApi) -> TokenStream {
    let resource = &api.resources[resource_api.resource];
    let ty = &api.types[resource.type_id];
    let module = &ty.module;
    let trait_name = format_ident!("{}", resource_api.trait_name);
    let info = format_ident!("{}", resource_api.info_static);
    let info_static = resource_info(api, resource_api);
    let resource_ty = Ty::Named(resource.type_id);
    let methods = resource_api.methods.iter().map(|m| trait_method(api, module, &resource_ty, &info, m));
    let handlers = resource_api.methods.iter().map(|m| handler(api, module, resource_api, m));
    let routes = routes(resource_api);
    let kind = &resource.gvk.kind;
    let trait_doc = format!(
        " The operations on {kind}. Every method answers 405 `MethodNotAllowed` unless implemented, so a server implements only what it supports."
    );
    let dynamic = dynamic_impl(api, module, resource_api);
    quote! {
        #info_static

        #[doc = #trait_doc]
        pub trait #trait_name: Send + Sync + 'static {
            #(#methods)*
        }

        #dynamic

        #routes

        #(#handlers)*
    }
}

/// The trait implemented for any JSON-level server (`support::dynamic::Dynamic<S>`).
fn dynamic_impl(api: &Api, module: &[String], resource_api: &ResourceApi) -> TokenStream {
    let resource = &api.resources[resource_api.resource];
    let resource_ty = Ty::Named(resource.type_id);
    let trait_name = format_ident!("{}", resource_api.trait_name);
    let info = format_ident!("{}", resource_api.info_static);
    let methods = resource_api.methods.iter().map(|method| {
        let name = format_ident!("{}", method.name);
        let result = result_type(api, module, &resource_ty, method);
        let args = arguments(api, module, method);
        let params = args.iter().map(|(name, ty)| quote!(#name: #ty));
        let verb = format_ident!(
            "{}",
            match method.role {
                Role::Create => "Create",
                Role::Read => "Get",
                Role::Replace => "Update",
                Role::Patch => "Patch",
                Role::Delete => "Delete",
                Role::List => "List",
                Role::DeleteCollection => "DeleteCollection",
                Role::Watch => "Watch",
            }
        );
        let subresource = match &method.subresource {
            Some(sub) => quote!(Some(#sub)),
            None => quote!(None),
        };
        let path_params = method.path_set.map(|set| &api.server.path_sets[set].params);
        let has_path = |name: &str| path_params.is_some_and(|p| p.iter().any(|n| n == name));
        let namespace = if method.role == Role::Watch {
            quote!(namespace)
        } else if has_path("namespace") {
            quote!(namespace: Some(path.namespace))
        } else {
            quote!(namespace: None)
        };
        let name_value = if has_path("name") { quote!(Some(path.name)) } else { quote!(None) };
        let options = if method.param_set.is_some() {
            quote!(support::dynamic::Options::from_params(&params))
        } else {
            quote!(support::dynamic::Options::default())
        };
        let (body, patch) = match method.role {
            Role::Patch => (quote!(None), quote!(Some(body))),
            Role::Delete | Role::DeleteCollection if method.body.is_some() => {
                (quote!(body.as_ref().map(support::dynamic::to_json).transpose()?), quote!(None))
            }
            _ if method.body.is_some() => (quote!(Some(support::dynamic::to_json(&body)?)), quote!(None)),
            _ => (quote!(None), quote!(None)),
        };
        let answer = if method.role == Role::Watch {
            quote!(support::dynamic::watch(response))
        } else {
            match method.response_set {
                Some(set) => {
                    let set = &api.server.response_sets[set];
                    let enum_name = format_ident!("{}", set.name);
                    let arms = set.codes.iter().skip(1).map(|code| {
                        let variant = format_ident!("{}", crate::build::reason_phrase(*code));
                        quote!(#code => crate::responses::#enum_name::#variant(value),)
                    });
                    let first = format_ident!("{}", crate::build::reason_phrase(set.codes[0]));
                    quote! {
                        let (code, value) = support::dynamic::object(response)?;
                        Ok(match code {
                            #(#arms)*
                            _ => crate::responses::#enum_name::#first(value),
                        })
                    }
                }
                None => quote!(support::dynamic::object(response).map(|(_, value)| value)),
            }
        };
        quote! {
            async fn #name(&self, context: support::http::Context, #(#params),*) -> Result<#result, support::Status> {
                let request = support::dynamic::Request {
                    verb: support::dynamic::Verb::#verb,
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
    });
    quote! {
        impl<S: support::dynamic::DynamicApi> #trait_name for support::dynamic::Dynamic<S> {
            #(#methods)*
        }
    }
}

fn resource_info(api: &Api, resource_api: &ResourceApi) -> TokenStream {
    let resource = &api.resources[resource_api.resource];
    let info = format_ident!("{}", resource_api.info_static);
    let gvk = &resource.gvk;
    let (group, version, kind, plural, list_kind) =
        (&gvk.group, &gvk.version, &gvk.kind, &resource.plural, &resource.list_kind);
    let singular = &resource_api.singular;
    let namespaced = resource.namespaced;
    let (short_names, categories) = (&resource_api.short_names, &resource_api.categories);
    let columns = resource_api.columns.iter().map(|c| {
        let (name, type_, format, description, json_path) =
            (&c.name, &c.type_, &c.format, &c.description, &c.json_path);
        let priority = proc_macro2::Literal::i32_unsuffixed(c.priority);
        quote! {
            support::http::Column {
                name: #name,
                type_: #type_,
                format: #format,
                description: #description,
                priority: #priority,
                json_path: #json_path,
            }
        }
    });
    let scale = match &resource_api.scale {
        Some(paths) => {
            let (spec, status) = (&paths.spec_replicas, &paths.status_replicas);
            let selector = match &paths.label_selector {
                Some(path) => quote!(Some(#path)),
                None => quote!(None),
            };
            quote!(Some(support::http::ScalePaths { spec_replicas: #spec, status_replicas: #status, label_selector: #selector }))
        }
        None => quote!(None),
    };
    let deprecation_warning = match &resource_api.deprecation_warning {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    };
    let storage_version = resource_api.storage_version;
    let doc = format!(" How {kind} appears in discovery, errors and tables.");
    quote! {
        #[doc = #doc]
        pub static #info: support::http::ResourceInfo = support::http::ResourceInfo {
            group: #group,
            version: #version,
            kind: #kind,
            plural: #plural,
            singular: #singular,
            namespaced: #namespaced,
            list_kind: #list_kind,
            short_names: &[#(#short_names),*],
            categories: &[#(#categories),*],
            columns: &[#(#columns),*],
            scale: #scale,
            deprecation_warning: #deprecation_warning,
            storage_version: #storage_version,
        };
    }
}

/// The Rust type of a method's successful result.
fn result_type(api: &Api, module: &[String], resource: &Ty, method: &Method) -> TokenStream {
    if method.role == Role::Watch {
        let item = rust_type(api, resource, module);
        return quote!(support::http::watch::WatchStream<#item>);
    }
    let value =
        method.response.as_ref().map(|ty| rust_type(api, ty, module)).unwrap_or_else(|| quote!(support::Status));
    match method.response_set {
        Some(set) => {
            let set = format_ident!("{}", api.server.response_sets[set].name);
            quote!(crate::responses::#set<#value>)
        }
        None => value,
    }
}

/// The arguments after `context`: path, query parameters and body, as (name, type).
fn arguments(api: &Api, module: &[String], method: &Method) -> Vec<(proc_macro2::Ident, TokenStream)> {
    let mut args = Vec::new();
    if method.role == Role::Watch {
        args.push((format_ident!("namespace"), quote!(Option<String>)));
    } else if let Some(set) = method.path_set {
        let set = format_ident!("{}", api.server.path_sets[set].name);
        args.push((format_ident!("path"), quote!(crate::params::#set)));
    }
    if let Some(set) = method.param_set {
        let set = format_ident!("{}", api.server.param_sets[set].name);
        args.push((format_ident!("params"), quote!(crate::params::#set)));
    }
    if method.role == Role::Patch {
        args.push((format_ident!("body"), quote!(support::http::Patch)));
    } else if let Some(body) = &method.body {
        let body = rust_type(api, body, module);
        let body =
            if matches!(method.role, Role::Delete | Role::DeleteCollection) { quote!(Option<#body>) } else { body };
        args.push((format_ident!("body"), body));
    }
    args
}

fn trait_method(
    api: &Api,
    module: &[String],
    resource: &Ty,
    info: &proc_macro2::Ident,
    method: &Method,
) -> TokenStream {
    let name = format_ident!("{}", method.name);
    let doc = doc_attrs(method.doc.as_deref());
    let result = result_type(api, module, resource, method);
    let args = arguments(api, module, method);
    let params = args.iter().map(|(name, ty)| quote!(#name: #ty));
    let names: Vec<_> = args.iter().map(|(name, _)| name).collect();
    let verb = method.role.verb();
    quote! {
        #doc
        fn #name(&self, context: support::http::Context, #(#params),*)
            -> impl std::future::Future<Output = Result<#result, support::Status>> + Send
        {
            let _ = (context, #(#names),*);
            std::future::ready(Err(support::http::not_implemented(&#info, #verb)))
        }
    }
}

/// The `ListOptions`-style kind Kubernetes names when query parameters are invalid.
fn options_kind(role: Role) -> &'static str {
    match role {
        Role::Create => "CreateOptions",
        Role::Read => "GetOptions",
        Role::Replace => "UpdateOptions",
        Role::Patch => "PatchOptions",
        Role::Delete => "DeleteOptions",
        Role::List | Role::DeleteCollection | Role::Watch => "ListOptions",
    }
}

/// The handler serving `route` of `method`. Watches get two: one for the deprecated
/// /watch/ paths with path parameters, one for the path without.
fn handler_name(method: &Method, route: &Route) -> proc_macro2::Ident {
    if method.role == Role::Watch && !route.path.contains('{') {
        format_ident!("handle_{}_all", method.name)
    } else {
        format_ident!("handle_{}", method.name)
    }
}

/// `.route(path, get(handler).post(handler))` for every path of the resource.
fn routes(resource_api: &ResourceApi) -> TokenStream {
    let mut by_path: BTreeMap<&str, Vec<TokenStream>> = BTreeMap::new();
    for method in &resource_api.methods {
        for route in &method.routes {
            let handler = handler_name(method, route);
            let verb = format_ident!("{}", route.method.to_ascii_lowercase());
            by_path.entry(&route.path).or_default().push(quote!(#verb(#handler::<S>)));
        }
    }
    let routes = by_path.iter().map(|(path, handlers)| {
        let mut chain = handlers.iter();
        let first = chain.next().map(|h| quote!(support::axum::routing::#h));
        let rest = chain.map(|h| quote!(.#h));
        quote!(.route(#path, #first #(#rest)*))
    });
    let trait_name = format_ident!("{}", resource_api.trait_name);
    quote! {
        /// Every path of the resource, for a server implementing its trait.
        pub fn routes<S: #trait_name>() -> support::axum::Router<support::http::ApiState<S>> {
            support::axum::Router::new() #(#routes)*
        }
    }
}

fn handler(api: &Api, module: &[String], resource_api: &ResourceApi, method: &Method) -> TokenStream {
    if method.role == Role::Watch {
        let mut names: Vec<proc_macro2::Ident> = method.routes.iter().map(|r| handler_name(method, r)).collect();
        names.dedup();
        return names.iter().map(|name| watch_handler(api, resource_api, method, name)).collect();
    }
    let name = handler_name(method, &method.routes[0]);
    let trait_name = format_ident!("{}", resource_api.trait_name);
    let info = format_ident!("{}", resource_api.info_static);
    let method_name = format_ident!("{}", method.name);
    let options = options_kind(method.role);
    let param_set = method.param_set.map(|set| &api.server.param_sets[set]);
    let has_param = |name: &str| param_set.is_some_and(|set| set.params.iter().any(|p| p.name == name));
    let decode_params = param_set.map(|set| {
        let set = format_ident!("{}", set.name);
        quote!(let params = crate::params::#set::from_query(call.query())?;)
    });
    let check_params = param_set.map(|_| quote!(call.check_options(#options, params.validate())?;));
    let path_extractor = |set: Option<usize>| match set {
        Some(set) => {
            let set = format_ident!("{}", api.server.path_sets[set].name);
            quote!(support::http::PathParams(path): support::http::PathParams<crate::params::#set>,)
        }
        None => TokenStream::new(),
    };
    let args = arguments(api, module, method);
    let call_args = args.iter().map(|(name, _)| name);
    let reply = reply(method);

    let body = match method.role {
        Role::Watch => unreachable!("watch handlers are emitted by watch_handler"),
        Role::List if method.routes.iter().any(|r| r.kind == RouteKind::ListOrWatch) => {
            let namespace = if method.path_set.is_some() { quote!(Some(path.namespace.clone())) } else { quote!(None) };
            let timeout = if has_param("timeoutSeconds") { quote!(params.timeout_seconds) } else { quote!(None) };
            quote! {
                #decode_params
                #check_params
                if params.watch == Some(true) {
                    let timeout = #timeout;
                    let events = state.api.watch(call.context(), #namespace, params).await?;
                    return call.watch(events, timeout);
                }
                let value = state.api.#method_name(call.context(), #(#call_args),*).await?;
                #reply
            }
        }
        Role::Patch => {
            // In the order Kubernetes lists them (json, merge, strategic merge, apply).
            let mut allowed: Vec<_> = method.patch_types.iter().filter_map(|t| patch_type(t)).collect();
            allowed.sort_by_key(|(order, _)| *order);
            let allowed = allowed.into_iter().map(|(_, variant)| variant);
            // The options come first, as in Kubernetes: `force` and `fieldManager` depend on
            // the patch type, which the Content-Type names before the body is decoded.
            let field_manager =
                if has_param("fieldManager") { quote!(params.field_manager.as_deref()) } else { quote!(Some("")) };
            let apply_options = has_param("force").then(|| {
                quote! {
                    let is_apply = call.patch_type() == Some(support::http::PatchType::Apply);
                    support::rules::patch_options(params.force, #field_manager, is_apply, &mut errors);
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
                let value = state.api.#method_name(call.context(), #(#call_args),*).await?;
                #reply
            }
        }
        Role::Delete | Role::DeleteCollection => {
            let decode_body = method.body.as_ref().map(|body| {
                let ty = rust_type(api, body, module);
                quote! {
                    let body: Option<#ty> = call.optional_body()?;
                    if let Some(options) = &body {
                        call.check_options("DeleteOptions", support::Validate::validate(options))?;
                    }
                }
            });
            quote! {
                #decode_params
                #check_params
                #decode_body
                let value = state.api.#method_name(call.context(), #(#call_args),*).await?;
                #reply
            }
        }
        _ => {
            let decode_body = method.body.as_ref().map(|body| {
                let ty = rust_type(api, body, module);
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
                let value = state.api.#method_name(call.context(), #(#call_args),*).await?;
                #reply
            }
        }
    };
    let path = path_extractor(method.path_set);
    // Decoding a body consumes it, which needs the call mutably.
    let call = if method.body.is_some() || method.role == Role::Patch { quote!(mut call) } else { quote!(call) };
    quote! {
        async fn #name<S: #trait_name>(
            support::axum::extract::State(state): support::axum::extract::State<support::http::ApiState<S>>,
            #path
            request: support::axum::extract::Request,
        ) -> support::axum::response::Response {
            support::http::serve(request, &state.config, &#info, async move |#call| {
                #body
            })
            .await
        }
    }
}

/// A handler of the deprecated /watch/ paths: with a `{name}`, a watch of one object.
fn watch_handler(api: &Api, resource_api: &ResourceApi, method: &Method, name: &proc_macro2::Ident) -> TokenStream {
    let trait_name = format_ident!("{}", resource_api.trait_name);
    let info = format_ident!("{}", resource_api.info_static);
    let with_path = name.to_string().ends_with("_all").then_some(()).is_none();
    let param_set = method.param_set.map(|set| &api.server.param_sets[set]);
    let has_param = |name: &str| param_set.is_some_and(|set| set.params.iter().any(|p| p.name == name));
    let set = param_set.map(|set| format_ident!("{}", set.name));
    let name_selector = (with_path && has_param("fieldSelector")).then(|| {
        quote! {
            if let Some(name) = path.get("name") {
                params.field_selector = Some(support::http::watch::one_object_selector(params.field_selector.take(), name)?);
            }
        }
    });
    let binding = if name_selector.is_some() { quote!(let mut params) } else { quote!(let params) };
    let decode = set.map(|set| quote!(#binding = crate::params::#set::from_query(call.query())?;));
    let check = param_set.map(|_| quote!(call.check_options("ListOptions", params.validate())?;));
    let timeout = if has_param("timeoutSeconds") { quote!(params.timeout_seconds) } else { quote!(None) };
    let params_arg = param_set.map(|_| quote!(, params));
    let (path_arg, namespace) = if with_path {
        (
            quote!(support::http::PathParams(path): support::http::PathParams<std::collections::BTreeMap<String, String>>,),
            quote!(path.get("namespace").cloned()),
        )
    } else {
        (TokenStream::new(), quote!(None))
    };
    quote! {
        async fn #name<S: #trait_name>(
            support::axum::extract::State(state): support::axum::extract::State<support::http::ApiState<S>>,
            #path_arg
            request: support::axum::extract::Request,
        ) -> support::axum::response::Response {
            support::http::serve(request, &state.config, &#info, async move |call| {
                #decode
                #name_selector
                #check
                let timeout = #timeout;
                let events = state.api.watch(call.context(), #namespace #params_arg).await?;
                call.watch(events, timeout)
            })
            .await
        }
    }
}

/// Encodes `value`, the method's result, with the status code it stands for.
fn reply(method: &Method) -> TokenStream {
    match method.response_set {
        Some(_) => quote! {
            let (code, value) = value.into_parts();
            call.reply(support::axum::http::StatusCode::from_u16(code).unwrap_or_default(), &value)
        },
        None if method.success_code == 200 => quote!(call.reply(support::axum::http::StatusCode::OK, &value)),
        None => {
            let code = method.success_code;
            quote!(call.reply(support::axum::http::StatusCode::from_u16(#code).unwrap_or_default(), &value))
        }
    }
}

/// A patch content type's `support::http::PatchType`, with its place in Kubernetes' order.
fn patch_type(content_type: &str) -> Option<(u8, TokenStream)> {
    let (order, variant) = match content_type {
        "application/json-patch+json" => (0, quote!(Json)),
        "application/merge-patch+json" => (1, quote!(Merge)),
        "application/strategic-merge-patch+json" => (2, quote!(StrategicMerge)),
        "application/apply-patch+yaml" => (3, quote!(Apply)),
        _ => return None,
    };
    Some((order, quote!(support::http::PatchType::#variant)))
}

/// `routes.rs` of a group/version: its router and its discovery entry.
pub fn group_version_file(api: &Api, gv: &GroupVersion) -> TokenStream {
    let resources: Vec<&ResourceApi> = gv.resources.iter().map(|&i| &api.server.resources[i]).collect();
    let traits: Vec<_> = resources
        .iter()
        .map(|r| {
            let file = format_ident!("{}", r.file);
            let name = format_ident!("{}", r.trait_name);
            quote!(super::#file::#name)
        })
        .collect();
    let merges = resources.iter().map(|r| {
        let file = format_ident!("{}", r.file);
        quote!(.merge(super::#file::routes::<S>()))
    });
    let entries = resources.iter().flat_map(|r| discovery_entries(api, r));
    let (group, version) = (&gv.group, &gv.version);
    let api_version = if group.is_empty() { version.clone() } else { format!("{group}/{version}") };
    let router_doc = format!(" Every path of `{api_version}`, for a server implementing all its resources' traits.");
    quote! {
        #[doc = #router_doc]
        pub fn router<S: #(#traits)+*>() -> support::axum::Router<support::http::ApiState<S>> {
            support::axum::Router::new() #(#merges)*
        }

        /// This group/version in discovery, with its OpenAPI document.
        pub const GROUP_VERSION: support::discovery::GroupVersionInfo = support::discovery::GroupVersionInfo {
            group: #group,
            version: #version,
            resources: &[#(#entries),*],
            openapi: include_str!("openapi.json"),
        };
    }
}

fn discovery_entries(api: &Api, resource_api: &ResourceApi) -> Vec<TokenStream> {
    let resource = &api.resources[resource_api.resource];
    let (kind, plural, namespaced, singular) =
        (&resource.gvk.kind, &resource.plural, resource.namespaced, &resource_api.singular);
    let verbs = &resource_api.verbs;
    let (short_names, categories) = (&resource_api.short_names, &resource_api.categories);
    let mut entries = vec![quote! {
        support::discovery::ApiResourceInfo {
            name: #plural,
            singular_name: #singular,
            namespaced: #namespaced,
            kind: #kind,
            verbs: &[#(#verbs),*],
            short_names: &[#(#short_names),*],
            categories: &[#(#categories),*],
            ..support::discovery::ApiResourceInfo::EMPTY
        }
    }];
    for (subresource, verbs) in &resource_api.subresource_verbs {
        let name = format!("{plural}/{subresource}");
        // A subresource speaking another kind (`scale` speaks autoscaling/v1 Scale) says so.
        let gvk = resource_api
            .methods
            .iter()
            .filter(|m| m.subresource.as_ref() == Some(subresource))
            .find_map(|m| match &m.response {
                Some(Ty::Named(id)) => match &api.types[*id].kind {
                    crate::ir::TypeKind::Struct(s) if s.gvks.len() == 1 => Some(s.gvks[0].clone()),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_else(|| resource.gvk.clone());
        let sub_kind = &gvk.kind;
        let other_group = (gvk.group != resource.gvk.group || gvk.version != resource.gvk.version).then(|| {
            let (group, version) = (&gvk.group, &gvk.version);
            quote!(group: #group, version: #version,)
        });
        entries.push(quote! {
            support::discovery::ApiResourceInfo {
                name: #name,
                namespaced: #namespaced,
                #other_group
                kind: #sub_kind,
                verbs: &[#(#verbs),*],
                ..support::discovery::ApiResourceInfo::EMPTY
            }
        });
    }
    entries
}

/// `src/server.rs`: the trait of a complete server, its router and the API catalog.
pub fn server_file(api: &Api) -> TokenStream {
    let traits: Vec<TokenStream> = api
        .server
        .resources
        .iter()
        .map(|r| {
            let ty = &api.types[api.resources[r.resource].type_id];
            let segments = ty.module.iter().map(|m| format_ident!("{}", m));
            let name = format_ident!("{}", r.trait_name);
            quote!(crate #(:: #segments)* :: #name)
        })
        .collect();
    let gv_paths: Vec<TokenStream> = api
        .server
        .group_versions
        .iter()
        .map(|gv| {
            let segments = gv.module.iter().map(|m| format_ident!("{}", m));
            quote!(crate #(:: #segments)* ::routes)
        })
        .collect();
    let checks = api.server.resources.iter().map(|r| {
        let resource = &api.resources[r.resource];
        let ty = &api.types[resource.type_id];
        let segments = ty.module.iter().map(|m| format_ident!("{}", m));
        let name = format_ident!("{}", ty.name);
        let (group, version, kind) = (&resource.gvk.group, &resource.gvk.version, &resource.gvk.kind);
        quote!((#group, #version, #kind, support::dynamic::typed::<crate #(:: #segments)* :: #name>))
    });
    let release = api.server.release.as_deref().unwrap_or(DEFAULT_RELEASE);
    let (major, minor) = release.split_once('.').unwrap_or(("1", release));
    let git_version = format!("v{major}.{minor}.0");
    let bound = if traits.is_empty() { quote!(Send + Sync + 'static) } else { quote!(#(#traits)+*) };
    quote! {
        //! A complete API server's trait, router and discovery catalog.

        /// Implemented by a server for every resource of these specs.
        pub trait Server: #bound {}

        impl<T: #bound> Server for T {}

        /// Discovery information of every group/version, and the version reported at `/version`.
        pub static CATALOG: support::discovery::ApiCatalog = support::discovery::ApiCatalog {
            groups: &[#(#gv_paths::GROUP_VERSION),*],
            version: support::discovery::VersionInfo { major: #major, minor: #minor, git_version: #git_version },
        };

        /// The typed check (decode and validate) of every resource, by group, version and
        /// kind, for servers that work with JSON (`support::dynamic`).
        pub static TYPED_CHECKS: &[(&str, &str, &str, support::dynamic::TypedCheck)] = &[#(#checks),*];

        /// Every path of every resource, plus discovery (`/version`, `/api`, `/apis`, ...) and
        /// the OpenAPI documents, served by `api` with `config`. Requests no route serves get
        /// Kubernetes `Status` errors too.
        pub fn router<S: Server>(api: S, config: support::http::Config) -> support::axum::Router {
            let state = support::http::ApiState { api: std::sync::Arc::new(api), config: std::sync::Arc::new(config) };
            let routes = support::axum::Router::new()
                #(.merge(#gv_paths::router::<S>()))*
                .with_state(state)
                .merge(support::discovery::routes(&CATALOG));
            support::http::status_errors(routes)
        }
    }
}

/// The release reported at `/version` when the specs name none.
const DEFAULT_RELEASE: &str = "1.32";
