//! `src/server.rs`: the trait of a complete server, its router and the API catalog.

use proc_macro2::TokenStream;
use quote::quote;

use super::features::Feature;
use super::scope::Scope;

pub fn server_file(scope: &mut Scope) -> TokenStream {
    let api = scope.api;
    let traits: Vec<TokenStream> = api
        .resources
        .iter()
        .map(|r| {
            let module = &api.ty(r.type_id).module;
            scope.import(&format!("crate::{}::{}", module.join("::"), r.trait_name))
        })
        .collect();
    let routes: Vec<TokenStream> = api
        .group_versions
        .iter()
        .map(|gv| format!("crate::{}::routes", gv.module.join("::")).parse().expect("a path"))
        .collect();
    let typed_checks = scope.gated(Feature::Dynamic, |scope| {
        let dynamic = scope.import("kube_apigen::dynamic");
        let checks: Vec<TokenStream> = api
            .resources
            .iter()
            .map(|r| {
                let model = scope.named(r.type_id);
                let (group, version, kind) = (&r.gvk.group, &r.gvk.version, &r.gvk.kind);
                quote!((#group, #version, #kind, #dynamic::typed::<#model>))
            })
            .collect();
        quote! {
            /// The typed check (decode and validate) of every resource, by group, version and
            /// kind, for servers that work with JSON (`kube_apigen::dynamic`).
            pub static TYPED_CHECKS: &[(&str, &str, &str, #dynamic::TypedCheck)] = &[#(#checks),*];
        }
    });
    let served_api = scope.gated(Feature::Dynamic, |scope| {
        let dynamic = scope.import("kube_apigen::dynamic");
        quote! {
            /// This crate's API as a server `S` that holds objects as JSON serves it: the
            /// catalog, the typed checks and the router over `S` (such as a registry's store).
            pub fn api<S: #dynamic::DynamicApi>() -> #dynamic::ServedApi<S> {
                #dynamic::ServedApi {
                    catalog: &CATALOG,
                    typed_checks: TYPED_CHECKS,
                    router: router::<#dynamic::Dynamic<S>>,
                }
            }
        }
    });
    let release = &api.release;
    let (major, minor) = (&release.major, &release.minor);
    let git_version = format!("v{major}.{minor}.0");
    let bound = if traits.is_empty() { quote!(Send + Sync + 'static) } else { quote!(#(#traits)+*) };
    let discovery = scope.import("kube_apigen::discovery");
    let (http, router) = (scope.import("kube_apigen::http"), scope.import("kube_apigen::axum::Router"));
    let arc = scope.import("std::sync::Arc");
    quote! {
        //! A complete API server's trait, router and discovery catalog.

        /// Implemented by a server for every resource of these specs.
        pub trait Server: #bound {}

        impl<T: #bound> Server for T {}

        /// Discovery information of every group/version, and the version reported at `/version`.
        pub static CATALOG: #discovery::ApiCatalog = #discovery::ApiCatalog {
            groups: &[#(#routes::GROUP_VERSION),*],
            version: #discovery::VersionInfo { major: #major, minor: #minor, git_version: #git_version },
        };

        #typed_checks

        /// Every path of every resource, plus discovery (`/version`, `/api`, `/apis`, ...) and
        /// the OpenAPI documents, served by `api` with `config`, every request authenticated
        /// and authorized first. Requests no route serves get Kubernetes `Status` errors too.
        pub fn router<S: Server>(api: S, config: #http::Config) -> #router {
            let config = #arc::new(config);
            let state = #http::ApiState { api: #arc::new(api), config: #arc::clone(&config) };
            let routes = #router::new()
                #(.merge(#routes::router::<S>()))*
                .with_state(state)
                .merge(#discovery::routes(&CATALOG));
            #http::guard(#http::status_errors(routes), config)
        }

        #served_api
    }
}
