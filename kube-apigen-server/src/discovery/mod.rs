//! API discovery and OpenAPI documents, served from static data the generator emits.
//!
//! A generated crate describes what it serves as one [`ApiCatalog`] `static`: the server's
//! version, and per group-version its resources (as [`ResourceInfo`]) and its OpenAPI v3
//! document (JSON text embedded at generation time). [`routes`] turns the catalog into the
//! endpoints clients such as `kubectl` read before anything else:
//!
//! | path | answer |
//! |---|---|
//! | `GET /version` | `version.Info` (`kubectl version`; the `kubectl` dispatcher picks its binary by `minor`) |
//! | `GET /api` | `APIVersions` when the catalog has the core group (`""`), otherwise 404; aggregated: the core group, or no group |
//! | `GET /api/{version}` | the core group's `APIResourceList` |
//! | `GET /apis` | `APIGroupList`, in the API server's order, with each group's `preferredVersion`; aggregated: every group but the core one, with its versions and resources |
//! | `GET /apis/{group}` | `APIGroup` |
//! | `GET /apis/{group}/{version}` | `APIResourceList` (`kubectl api-resources`, resource name resolution) |
//! | `GET /openapi/v2` | the Swagger 2.0 document of every group-version, JSON or gnostic protobuf (`swagger` module) |
//! | `GET /openapi/v3` | `{"paths":{"apis/G/V":{"serverRelativeURL":"/openapi/v3/apis/G/V?hash=H"}}}` |
//! | `GET /openapi/v3/apis/{group}/{version}`, `/openapi/v3/api/{version}` | the embedded document (`kubectl explain`, field validation) |
//!
//! Unknown groups, versions and documents answer the API server's 404
//! [`Status::route_not_found`]; other methods than `GET` and `HEAD` its 405
//! [`Status::route_method_not_allowed`]. Everything is JSON, but `/openapi/v2`, which is
//! also served as gnostic's protobuf.
//!
//! `/api` and `/apis` also serve aggregated discovery, as kube-apiserver does, to requests
//! whose `Accept` header prefers
//! `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList` (what kubectl,
//! client-go and kube-rs's `Discovery::run_aggregated` send first): one
//! `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` with every group, version and resource
//! (short names, categories, verbs, subresources included), so that clients need no
//! request per group-version. It is answered with that `Content-Type`, an `ETag`
//! (`If-None-Match` gets 304), `Vary: Accept` and `Cache-Control: public`. A catalog that
//! claims 1.32 or older also serves `v=v2beta1`. Without a core group, the aggregated `/api`
//! is an empty list (kube-rs's unfiltered `run_aggregated` needs a list; kubectl takes
//! either). Requests that prefer plain JSON, or send no `Accept`, get the plain documents,
//! byte for byte as before. The format, the negotiation and the differences between built-in
//! and custom groups are told in the `aggregated` module's source.
//!
//! All documents are built from the same catalog data, once, when the routes are made.
//! How the ordering and the OpenAPI caching work is told in the `order` and `openapi`
//! modules' sources.

mod aggregated;
mod documents;
mod gnostic;
mod openapi;
mod order;
mod swagger;

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};

use documents::{Documents, api_versions_json, group_version_path};
use kube_apigen_core::ResourceInfo;
use kube_apigen_core::status::Status;

pub use documents::storage_version_hash;
pub use openapi::openapi_hash;
pub use order::compare_kube_aware_versions;
pub use swagger::PROTOBUF_CONTENT_TYPE as OPENAPI_V2_PROTOBUF;

/// Everything a server serves, as discovery reports it.
#[derive(Clone, Copy, Debug)]
pub struct ApiCatalog {
    /// One entry per group-version, in any order: [`routes`] sorts them as the API server
    /// does. The core group is the group `""`.
    pub groups: &'static [GroupVersionInfo],
    /// What `/version` reports.
    pub version: VersionInfo,
}

/// The Kubernetes version a server claims to be, as `GET /version` reports it.
///
/// The other fields of `version.Info` are filled in: `gitCommit` and `gitTreeState` empty,
/// `buildDate` `1970-01-01T00:00:00Z`, `goVersion` empty, `compiler` `rustc`, `platform`
/// the machine's, in Go's names (`linux/amd64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    /// `"1"`.
    pub major: &'static str,
    /// E.g. `"32"`; clients compare it with their own minor version for skew warnings.
    pub minor: &'static str,
    /// E.g. `"v1.32.0"`.
    pub git_version: &'static str,
}

/// One group-version: its resources and its OpenAPI v3 document.
#[derive(Clone, Copy, Debug)]
pub struct GroupVersionInfo {
    /// `""` for the core group (served below `/api`), otherwise e.g. `autoscaling`.
    pub group: &'static str,
    /// E.g. `v2`.
    pub version: &'static str,
    /// What `/apis/{group}/{version}` lists, in this order: each resource by its plural,
    /// followed by its subresources (`horizontalpodautoscalers/status`). The API server lists
    /// built-in resources sorted by name.
    pub resources: &'static [&'static ResourceInfo],
    /// The group-version's OpenAPI v3 document, JSON text, served byte for byte; `""` when
    /// there is none (the group-version is then left out of `/openapi/v3`).
    pub openapi: &'static str,
}

impl ApiCatalog {
    /// What `derive` makes of this catalog, made once per process and type: servers of
    /// the same catalog share what they render of it (a test may build a server per
    /// test). A catalog is a `static` of its generated crate that nothing changes, so its
    /// address is its identity. `derive` runs under a process-wide lock: it must not call
    /// `derived` itself.
    pub fn derived<T: Send + Sync + 'static>(&'static self, derive: impl FnOnce(&'static Self) -> T) -> Arc<T> {
        type Derived = (usize, TypeId, Arc<dyn Any + Send + Sync>);
        static DERIVED: Mutex<Vec<Derived>> = Mutex::new(Vec::new());
        let key = (std::ptr::from_ref(self) as usize, TypeId::of::<T>());
        let mut derived = DERIVED.lock().unwrap_or_else(PoisonError::into_inner);
        let found = derived.iter().find(|(address, type_id, _)| (*address, *type_id) == key);
        if let Some(value) = found.and_then(|(_, _, value)| Arc::clone(value).downcast::<T>().ok()) {
            return value;
        }
        let value = Arc::new(derive(self));
        derived.push((key.0, key.1, Arc::clone(&value) as Arc<dyn Any + Send + Sync>));
        value
    }

    /// The entry of a group-version, if served.
    pub fn group_version(&self, group: &str, version: &str) -> Option<&'static GroupVersionInfo> {
        self.groups.iter().find(|gv| gv.group == group && gv.version == version)
    }

    /// The version of `group` that discovery reports as preferred, if the group is served.
    pub fn preferred_version(&self, group: &str) -> Option<&'static str> {
        self.groups
            .iter()
            .filter(|gv| gv.group == group)
            .map(|gv| gv.version)
            .min_by(|a, b| order::compare_versions(group, a, b))
    }
}

/// The routes that serve `catalog`'s discovery and OpenAPI documents (see the module docs).
///
/// The router carries its own state, so it is a `Router<S>` for any `S`: merge it into the
/// application's router before or after that router's `.with_state(..)`:
/// `app.merge(discovery::routes(&CATALOG))`. It sets no fallback, so it merges with a
/// router that has one; and its paths are `/version`, `/api`, `/api/{version}`, `/apis`,
/// `/apis/{group}`, `/apis/{group}/{version}` and below `/openapi/v3`, which coexist with
/// resource routes such as `/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers`
/// (static segments win over parameters). A router merged with it must not route those
/// exact paths, nor `/apis/{g}/{v}` under other parameter names (axum panics on conflicts).
///
/// The documents are rendered once per catalog and process ([`ApiCatalog::derived`]);
/// requests only copy bytes.
pub fn routes<S: Clone + Send + Sync + 'static>(catalog: &'static ApiCatalog) -> Router<S> {
    let documents = catalog.derived(Documents::new);
    Router::new()
        .route("/version", only_get(get(version)))
        .route("/api", only_get(get(api)))
        .route("/api/{version}", only_get(get(core_resources)))
        .route("/apis", only_get(get(group_list)))
        .route("/apis/{group}", only_get(get(api_group)))
        .route("/apis/{group}/{version}", only_get(get(resources)))
        .route("/openapi/v2", only_get(get(swagger_v2)))
        .route("/openapi/v3", only_get(get(openapi_paths)))
        .route("/openapi/v3/api/{version}", only_get(get(core_openapi)))
        .route("/openapi/v3/apis/{group}/{version}", only_get(get(group_openapi)))
        .with_state(documents)
}

type Docs = State<Arc<Documents>>;

/// `GET` (and so `HEAD`) only; other methods get the API server's 405.
fn only_get(router: MethodRouter<Arc<Documents>>) -> MethodRouter<Arc<Documents>> {
    router.fallback(|| async { status_response(&Status::route_method_not_allowed()) })
}

/// A `Status` as the response body, with its code.
fn status_response(status: &Status) -> Response {
    let code = StatusCode::from_u16(status.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(status).unwrap_or_default();
    (code, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

fn not_found() -> Response {
    status_response(&Status::route_not_found())
}

fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

async fn version(State(docs): Docs) -> Response {
    json(docs.version.clone())
}

async fn api(State(docs): Docs, headers: HeaderMap) -> Response {
    if let Some(aggregated) = docs.aggregated_api.respond(&headers) {
        return aggregated;
    }
    if docs.core_versions.is_empty() {
        return not_found();
    }
    let host = headers.get(header::HOST).and_then(|host| host.to_str().ok());
    json(api_versions_json(&docs.core_versions, host))
}

async fn core_resources(State(docs): Docs, Path(version): Path<String>) -> Response {
    match docs.resource_lists.get(&("", version.as_str())) {
        Some(list) => json(list.clone()),
        None => not_found(),
    }
}

async fn group_list(State(docs): Docs, headers: HeaderMap) -> Response {
    if let Some(aggregated) = docs.aggregated_apis.respond(&headers) {
        return aggregated;
    }
    json(docs.group_list.clone())
}

async fn api_group(State(docs): Docs, Path(group): Path<String>) -> Response {
    match docs.groups.get(group.as_str()) {
        Some(document) => json(document.clone()),
        None => not_found(),
    }
}

async fn resources(State(docs): Docs, Path((group, version)): Path<(String, String)>) -> Response {
    if group.is_empty() {
        return not_found();
    }
    match docs.resource_lists.get(&(group.as_str(), version.as_str())) {
        Some(list) => json(list.clone()),
        None => not_found(),
    }
}

async fn swagger_v2(State(docs): Docs, headers: HeaderMap) -> Response {
    docs.swagger.respond(&headers)
}

async fn openapi_paths(State(docs): Docs, headers: HeaderMap) -> Response {
    let body = Body::from(docs.openapi_paths.clone());
    openapi::conditional_json(&headers, HeaderMap::new(), &docs.openapi_paths_hash, body)
}

async fn core_openapi(docs: Docs, Path(version): Path<String>, query: RawQuery, headers: HeaderMap) -> Response {
    openapi_document(docs, group_version_path("", &version), query, headers)
}

async fn group_openapi(
    docs: Docs,
    Path((group, version)): Path<(String, String)>,
    query: RawQuery,
    headers: HeaderMap,
) -> Response {
    openapi_document(docs, group_version_path(&group, &version), query, headers)
}

fn openapi_document(State(docs): Docs, path: String, RawQuery(query): RawQuery, headers: HeaderMap) -> Response {
    let Some((document, hash)) = docs.openapi.get(&path) else {
        return not_found();
    };
    if !openapi::accepts_json(&headers) {
        return status_response(&Status::not_acceptable(&["application/json"]));
    }
    openapi::document_response(&headers, query.as_deref(), &path, document, hash)
}
