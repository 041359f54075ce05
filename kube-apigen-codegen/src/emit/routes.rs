//! A group/version's `routes.rs`: its router and its discovery entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::scope::Scope;
use crate::ir::{GroupVersion, Resource};

pub fn group_version_file(scope: &mut Scope, gv: &GroupVersion) -> TokenStream {
    let api = scope.api;
    let resources: Vec<&Resource> = gv.resources.iter().map(|&id| api.resource(id)).collect();
    let traits: Vec<TokenStream> =
        resources.iter().map(|r| scope.import(&format!("super::{}", r.trait_name))).collect();
    let merges = resources.iter().map(|r| {
        let file = format_ident!("{}", r.file);
        quote!(.merge(super::#file::routes::<S>()))
    });
    let infos: Vec<TokenStream> =
        resources.iter().map(|r| scope.import(&format!("super::{}", r.info_static))).collect();
    let (group, version) = (&gv.group, &gv.version);
    let router_doc =
        format!(" Every path of `{}`, for a server implementing all its resources' traits.", gv.api_version());
    let (router, state) = (scope.import("kube_apigen::axum::Router"), scope.import("kube_apigen::http::ApiState"));
    let group_version_info = scope.import("kube_apigen::discovery::GroupVersionInfo");
    quote! {
        #[doc = #router_doc]
        pub fn router<S: #(#traits)+*>() -> #router<#state<S>> {
            #router::new() #(#merges)*
        }

        /// This group/version in discovery, with its OpenAPI document.
        pub const GROUP_VERSION: #group_version_info = #group_version_info {
            group: #group,
            version: #version,
            resources: &[#(&#infos),*],
            openapi: include_str!("openapi.json"),
        };
    }
}
