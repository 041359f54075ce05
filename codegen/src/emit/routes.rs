//! A group/version's `routes.rs`: its router and its discovery entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::scope::Scope;
use crate::ir::{GroupVersion, Resource, Subresource};

pub fn group_version_file(scope: &mut Scope, gv: &GroupVersion) -> TokenStream {
    let api = scope.api;
    let resources: Vec<&Resource> = gv.resources.iter().map(|&id| api.resource(id)).collect();
    let traits: Vec<TokenStream> =
        resources.iter().map(|r| scope.import(&format!("super::{}", r.trait_name))).collect();
    let merges = resources.iter().map(|r| {
        let file = format_ident!("{}", r.file);
        quote!(.merge(super::#file::routes::<S>()))
    });
    let entries: Vec<TokenStream> = resources.iter().flat_map(|r| discovery_entries(scope, r)).collect();
    let (group, version) = (&gv.group, &gv.version);
    let router_doc =
        format!(" Every path of `{}`, for a server implementing all its resources' traits.", gv.api_version());
    let (router, state) = (scope.import("support::axum::Router"), scope.import("support::http::ApiState"));
    let group_version_info = scope.import("support::discovery::GroupVersionInfo");
    quote! {
        #[doc = #router_doc]
        pub fn router<S: #(#traits)+*>() -> #router<#state<S>> {
            #router::new() #(#merges)*
        }

        /// This group/version in discovery, with its OpenAPI document.
        pub const GROUP_VERSION: #group_version_info = #group_version_info {
            group: #group,
            version: #version,
            resources: &[#(#entries),*],
            openapi: include_str!("openapi.json"),
        };
    }
}

fn discovery_entries(scope: &mut Scope, resource: &Resource) -> Vec<TokenStream> {
    let entry = scope.import("support::discovery::ApiResourceInfo");
    let (kind, plural, singular) = (&resource.gvk.kind, &resource.plural, &resource.singular);
    let namespaced = resource.scope == support::Scope::Namespaced;
    let verbs = &resource.verbs;
    let (short_names, categories) = (&resource.short_names, &resource.categories);
    let mut entries = vec![quote! {
        #entry {
            name: #plural,
            singular_name: #singular,
            namespaced: #namespaced,
            kind: #kind,
            verbs: &[#(#verbs),*],
            short_names: &[#(#short_names),*],
            categories: &[#(#categories),*],
            ..#entry::EMPTY
        }
    }];
    for Subresource { name, verbs, other_kind } in &resource.subresources {
        let name = format!("{plural}/{name}");
        let kind = other_kind.as_ref().map_or(kind, |gvk| &gvk.kind);
        // A subresource speaking another group's kind (`scale` speaks autoscaling/v1 Scale) says so.
        let other_group = other_kind
            .as_ref()
            .filter(|gvk| gvk.group != resource.gvk.group || gvk.version != resource.gvk.version)
            .map(|gvk| {
                let (group, version) = (&gvk.group, &gvk.version);
                quote!(group: #group, version: #version,)
            });
        entries.push(quote! {
            #entry {
                name: #name,
                namespaced: #namespaced,
                #other_group
                kind: #kind,
                verbs: &[#(#verbs),*],
                ..#entry::EMPTY
            }
        });
    }
    entries
}
