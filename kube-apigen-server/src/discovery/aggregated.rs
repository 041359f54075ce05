//! Aggregated discovery (`apidiscovery.k8s.io/v2`, KEP-3352): `/apis` and `/api` as one
//! `APIGroupDiscoveryList` each, with every group's versions and every version's resources,
//! for clients that ask for it in `Accept`.
//!
//! # Negotiation
//!
//! kube-apiserver wraps `/api` and `/apis` in a handler that negotiates the `Accept` header
//! (the first header line) as its other endpoints do: media ranges by `q`, highest first
//! (ties keep their order, concrete types before wildcards); the first range that admits a
//! media type the server writes and whose parameters the endpoint allows decides. The
//! parameters `g`, `v` and `as` ask for a conversion, and discovery allows only
//! `g=apidiscovery.k8s.io;as=APIGroupDiscoveryList` with `v=v2` (and `v=v2beta1` up to 1.32:
//! 1.33 turned it off by default with the `AggregatedDiscoveryRemoveBetaType` gate); a range
//! asking for another conversion (`as=Table`) is skipped. A range without them means the
//! plain document, and so does a header no range of which is admitted. kubectl and client-go
//! (since 1.30) and kube-rs send
//! `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`.
//!
//! Only JSON is written here: ranges for protobuf or YAML are skipped (where the API server
//! would answer in those), and so are ranges with `q=0` (which the API server does not
//! treat as refusals). The header is read as every endpoint reads it (`crate::http::accept`):
//! a malformed `q` ranks its range last, as in the API server, and parameter names match
//! without regard to case.
//!
//! # Answer
//!
//! `Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`
//! (`v=v2beta1` for that version, whose document differs only in `apiVersion`), with
//! `ETag` (the quoted upper-case hex SHA-512 of the list's JSON without `kind` and
//! `apiVersion`, as the API server computes it), `Vary: Accept` and `Cache-Control: public`;
//! `If-None-Match` with that tag answers 304 with the same three headers and no body.
//!
//! ```json
//! {"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
//!  {"metadata":{"name":"autoscaling","creationTimestamp":null},"versions":[
//!   {"version":"v2","resources":[
//!    {"resource":"horizontalpodautoscalers","responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"},
//!     "scope":"Namespaced","singularResource":"horizontalpodautoscaler","verbs":["create",...],
//!     "shortNames":["hpa"],"categories":["all"],
//!     "subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"},"verbs":["get","patch","update"]}]}],
//!    "freshness":"Current"}]}]}
//! ```
//!
//! - `items`: the groups in the order of `/apis` (see `order`), each with its versions
//!   preferred first; `/api` lists the core group (`metadata` without `name`) or nothing
//!   (`"items":[]`) when the catalog has none. `/apis` never lists the core group.
//! - `metadata` is Go's `ObjectMeta` with only the name set: up to 1.33 it serializes a zero
//!   `"creationTimestamp":null`, from 1.34 on it does not.
//! - A version without resources has no `resources` key; `freshness` is always `Current`.
//! - `shortNames`, `categories` and `subresources` are left out when empty; `verbs` and
//!   `singularResource` never are.
//! - Built-in groups (kube-apiserver's own, the core group included) are converted from the
//!   `APIResourceList` as `ConvertGroupVersionIntoToDiscovery` does: resources in list order,
//!   `responseKind` is the entry's own `group`, `version` and `kind` (so empty group and
//!   version except for e.g. `scale`), subresources attached to their resource in list order
//!   (a subresource without its resource gets an empty one, scope from the subresource).
//! - Every other group is served as custom resources are (apiextensions' discovery
//!   controller): resources sorted by name, `responseKind` with the group-version filled in
//!   (`scale` keeps `autoscaling/v1` `Scale`), subresources `status` then `scale`.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;

use super::openapi::{none_match, openapi_hash};
use super::order::is_built_in;
use super::{GroupVersionInfo, VersionInfo};
use crate::http::accept;
use kube_apigen_core::{ResourceInfo, Scope};

const DISCOVERY_GROUP: &str = "apidiscovery.k8s.io";
const LIST_KIND: &str = "APIGroupDiscoveryList";
const CONTENT_TYPE_V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const CONTENT_TYPE_V2BETA1: &str = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

/// What the Kubernetes version a catalog claims changes in aggregated discovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flavor {
    /// `apidiscovery.k8s.io/v2beta1` is served besides `v2` (up to 1.32).
    pub v2beta1: bool,
    /// Group `metadata` carries `"creationTimestamp":null` (up to 1.33).
    pub creation_timestamp: bool,
}

impl Flavor {
    /// The flavor of `version`; a version whose minor does not start with a number (or whose
    /// major is not `1`) is taken as a current one.
    pub(crate) fn of(version: &VersionInfo) -> Flavor {
        let digits = version.minor.bytes().take_while(u8::is_ascii_digit).count();
        let minor = (version.major == "1").then(|| version.minor[..digits].parse::<u32>().ok());
        match minor.flatten() {
            Some(minor) => Flavor { v2beta1: minor <= 32, creation_timestamp: minor <= 33 },
            None => Flavor { v2beta1: false, creation_timestamp: false },
        }
    }
}

/// `apidiscovery.k8s.io/v2` `APIGroupDiscovery`'s `metadata` (an `ObjectMeta`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetadataJson<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    /// `Some(())` is written as `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    creation_timestamp: Option<()>,
}

/// `APIGroupDiscovery`.
#[derive(Serialize)]
struct GroupJson<'a> {
    metadata: MetadataJson<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    versions: Vec<VersionJson<'a>>,
}

/// `APIVersionDiscovery`.
#[derive(Serialize)]
struct VersionJson<'a> {
    version: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resources: Vec<ResourceJson<'a>>,
    freshness: &'static str,
}

/// `APIResourceDiscovery`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceJson<'a> {
    resource: &'a str,
    response_kind: KindJson<'a>,
    scope: &'static str,
    singular_resource: &'a str,
    verbs: &'a [&'a str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    short_names: &'a [&'a str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    categories: &'a [&'a str],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    subresources: Vec<SubresourceJson<'a>>,
}

/// `APISubresourceDiscovery` (never with `acceptedTypes`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubresourceJson<'a> {
    subresource: &'a str,
    response_kind: KindJson<'a>,
    verbs: &'a [&'a str],
}

/// `metav1.GroupVersionKind`: all three keys, always.
#[derive(Clone, Copy, Serialize)]
struct KindJson<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
}

fn scope(scope: Scope) -> &'static str {
    match scope {
        Scope::Namespaced => "Namespaced",
        Scope::Cluster => "Cluster",
    }
}

/// The resources of one group-version, built in or custom (see the module docs).
fn resources_json(gv: &'static GroupVersionInfo) -> Vec<ResourceJson<'static>> {
    let custom = !is_built_in(gv.group);
    let mut resources: Vec<ResourceJson<'static>> =
        gv.resources.iter().map(|resource| resource_json(gv, resource, custom)).collect();
    if custom {
        resources.sort_by(|a, b| a.resource.cmp(b.resource));
        for resource in &mut resources {
            resource.subresources.sort_by_key(|sub| match sub.subresource {
                "status" => 0,
                "scale" => 1,
                _ => 2,
            });
        }
    }
    resources
}

fn resource_json(
    gv: &'static GroupVersionInfo,
    resource: &'static ResourceInfo,
    custom: bool,
) -> ResourceJson<'static> {
    // Custom resources name their group-version in every kind; built-in ones only where a
    // subresource speaks another kind (`scale`).
    let own_kind = if custom {
        KindJson { group: gv.group, version: gv.version, kind: resource.kind }
    } else {
        KindJson { group: "", version: "", kind: resource.kind }
    };
    let subresources = resource
        .subresources
        .iter()
        .map(|sub| SubresourceJson {
            subresource: sub.name,
            response_kind: match sub.kind {
                Some(other) if (other.group, other.version) != (resource.group, resource.version) => {
                    KindJson { group: other.group, version: other.version, kind: other.kind }
                }
                Some(other) => KindJson { kind: other.kind, ..own_kind },
                None => own_kind,
            },
            verbs: sub.verbs,
        })
        .collect();
    ResourceJson {
        resource: resource.plural,
        response_kind: own_kind,
        scope: scope(resource.scope),
        singular_resource: resource.singular,
        verbs: resource.verbs,
        short_names: resource.short_names,
        categories: resource.categories,
        subresources,
    }
}

fn group_json(name: &'static str, versions: &[&'static GroupVersionInfo], flavor: Flavor) -> GroupJson<'static> {
    GroupJson {
        metadata: MetadataJson { name, creation_timestamp: flavor.creation_timestamp.then_some(()) },
        versions: versions
            .iter()
            .map(|gv| VersionJson { version: gv.version, resources: resources_json(gv), freshness: "Current" })
            .collect(),
    }
}

/// `{"kind":..,"apiVersion":..,"metadata":{},"items":ITEMS}`, or without `kind` and
/// `apiVersion` (what the `ETag` hashes) when `api_version` is `None`.
fn list_json(api_version: Option<&str>, items: &[u8]) -> Bytes {
    let mut body = Vec::with_capacity(items.len() + 120);
    if let Some(api_version) = api_version {
        body.extend_from_slice(
            format!(r#"{{"kind":"{LIST_KIND}","apiVersion":"{DISCOVERY_GROUP}/{api_version}","#).as_bytes(),
        );
    } else {
        body.push(b'{');
    }
    body.extend_from_slice(br#""metadata":{},"items":"#);
    body.extend_from_slice(items);
    body.push(b'}');
    Bytes::from(body)
}

/// One aggregated document (`/apis` or `/api`), rendered once.
pub(crate) struct Aggregated {
    v2: Bytes,
    /// The same list as `apidiscovery.k8s.io/v2beta1`, when the version served offers it.
    v2beta1: Option<Bytes>,
    /// Unquoted.
    etag: String,
}

impl Aggregated {
    /// The list of `groups`, each with its group-versions, in the order given.
    pub(crate) fn new(groups: &[(&'static str, Vec<&'static GroupVersionInfo>)], flavor: Flavor) -> Aggregated {
        let items: Vec<GroupJson<'static>> =
            groups.iter().map(|(name, versions)| group_json(name, versions, flavor)).collect();
        let items = serde_json::to_vec(&items).expect("discovery documents serialize");
        Aggregated {
            v2: list_json(Some("v2"), &items),
            v2beta1: flavor.v2beta1.then(|| list_json(Some("v2beta1"), &items)),
            etag: openapi_hash(&list_json(None, &items)),
        }
    }

    /// The answer to a request whose `Accept` header asks for aggregated discovery; `None`
    /// when it prefers the plain document.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Option<Response> {
        let (body, content_type) = match negotiate(request, self.v2beta1.is_some())? {
            Version::V2 => (&self.v2, CONTENT_TYPE_V2),
            Version::V2beta1 => (self.v2beta1.as_ref()?, CONTENT_TYPE_V2BETA1),
        };
        let mut response = if none_match(request, &self.etag) {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else {
            let mut response = Response::new(Body::from(body.clone()));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            response
        };
        let headers = response.headers_mut();
        if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", self.etag)) {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(header::VARY, HeaderValue::from_static("Accept"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
        Some(response)
    }
}

/// An aggregated discovery version a client can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V2,
    V2beta1,
}

/// The aggregated discovery version `Accept` asks for before anything else this server
/// writes; `None` for the plain document (see the module docs).
fn negotiate(request: &HeaderMap, v2beta1: bool) -> Option<Version> {
    accept::most_preferred(accept::header(request), |range| {
        if !range.admits("application/json") {
            return None;
        }
        let Some(conversion) = range.conversion() else {
            return Some(None);
        };
        match (&*conversion.group, &*conversion.version, &*conversion.kind) {
            (DISCOVERY_GROUP, "v2", LIST_KIND) => Some(Some(Version::V2)),
            (DISCOVERY_GROUP, "v2beta1", LIST_KIND) if v2beta1 => Some(Some(Version::V2beta1)),
            _ => None,
        }
    })
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(value));
        headers
    }

    const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const V2BETA1: &str = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

    #[test]
    fn negotiation() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(negotiate(&accept(kubectl), true), Some(Version::V2));
        assert_eq!(negotiate(&accept(kubectl), false), Some(Version::V2));
        assert_eq!(negotiate(&HeaderMap::new(), true), None);
        assert_eq!(negotiate(&accept("application/json, */*"), true), None);
        assert_eq!(negotiate(&accept(V2), true), Some(Version::V2));
        assert_eq!(negotiate(&accept(V2BETA1), true), Some(Version::V2beta1));
        assert_eq!(negotiate(&accept(V2BETA1), false), None);
        let beta_first = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(negotiate(&accept(beta_first), true), Some(Version::V2beta1));
        assert_eq!(negotiate(&accept(beta_first), false), Some(Version::V2));
        // Order by q, then the header's order.
        let weighted =
            "application/json;q=0.5, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.9";
        assert_eq!(negotiate(&accept(weighted), true), Some(Version::V2));
        let plain_first = "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(negotiate(&accept(plain_first), true), None);
        // Wildcards rank below concrete types of the same q.
        let wildcard_first = "*/*, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(negotiate(&accept(wildcard_first), true), Some(Version::V2));
        let wildcard = "*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;q=0.1";
        assert_eq!(negotiate(&accept(wildcard), true), Some(Version::V2));
        // Other conversions, media types not written here and refusals are skipped.
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(negotiate(&accept(table), true), Some(Version::V2));
        let proto =
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json";
        assert_eq!(negotiate(&accept(proto), true), None);
        let refused = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0, application/json";
        assert_eq!(negotiate(&accept(refused), true), None);
        assert_eq!(
            negotiate(&accept("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList"), true),
            None
        );
        assert_eq!(negotiate(&accept("application/json;v=v2"), true), None);
        // A malformed q ranks its range last without refusing it.
        let malformed = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=high";
        assert_eq!(negotiate(&accept(malformed), true), Some(Version::V2));
        let malformed_first =
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=2, application/json;q=0.1";
        assert_eq!(negotiate(&accept(malformed_first), true), None);
        let spelled = r#"application/json;G=apidiscovery.k8s.io;V="v2";As=APIGroupDiscoveryList"#;
        assert_eq!(negotiate(&accept(spelled), true), Some(Version::V2));
    }

    #[test]
    fn flavors() {
        let version = |minor| VersionInfo { major: "1", minor, git_version: "" };
        let flavor = |v2beta1, creation_timestamp| Flavor { v2beta1, creation_timestamp };
        assert_eq!(Flavor::of(&version("31")), flavor(true, true));
        assert_eq!(Flavor::of(&version("32+")), flavor(true, true));
        assert_eq!(Flavor::of(&version("33")), flavor(false, true));
        assert_eq!(Flavor::of(&version("34")), flavor(false, false));
        assert_eq!(Flavor::of(&version("")), flavor(false, false));
    }
}
