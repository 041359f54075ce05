//! The custom resources of the CustomResourceDefinitions in the store, served beside the
//! generated router: their paths, and discovery and OpenAPI documents that include them.
//!
//! The stored definitions are the one source of truth: a request under
//! `/apis/<group>/<version>/` for a group the generated crate does not serve reads the
//! definition `<plural>.<group>` from the storage, and is served when the definition is
//! established and serves that version in that scope. The store then handles it as any
//! other resource (identity, `resourceVersion`, finalizers, patches, watch, `status` and
//! `scale`), with the definition's [`ResourceInfo`]; objects are pruned, defaulted and
//! checked with the version's schema ([`kube_apigen::structural`]), unknown fields
//! reported per `fieldValidation`.
//!
//! Discovery (`/api`, `/apis` and below, aggregated too) and the OpenAPI documents
//! (`/openapi/v2`, `/openapi/v3`) are the generated crate's catalog with a group-version
//! added per served version of the definitions, rendered again when the definitions
//! change. A definition's [`ResourceInfo`] and a catalog are `'static` as the generated
//! ones are: each distinct one is made once per process and kept (interned), which costs
//! a few kilobytes per definition, and per set of definitions a server has served.
//!
//! Deleting a definition deletes its objects; watches on its kind end when it goes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use futures::StreamExt;
use kube_apigen::axum::Router;
use kube_apigen::axum::extract::{Request, State};
use kube_apigen::axum::http::{Method, StatusCode};
use kube_apigen::axum::middleware::{Next, from_fn_with_state};
use kube_apigen::axum::response::{IntoResponse, Response};
use kube_apigen::discovery::{self, ApiCatalog, GroupVersionInfo};
use kube_apigen::dynamic::{self, DynamicApi, Options, Verb};
use kube_apigen::http::watch::WatchStream;
use kube_apigen::http::{Config, FieldValidation, PatchType, Query};
use kube_apigen::resource::{Column, KindInfo, ScalePaths, SubresourceInfo};
use kube_apigen::{ResourceInfo, Scope, Status};
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use crate::Store;
use crate::crd::{GROUP, PLURAL};
use crate::server::status_response;
use crate::storage::{RangeRequest, WatchItem};

/// The verbs of every custom resource, sorted as discovery lists them.
const VERBS: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const SUBRESOURCE_VERBS: &[&str] = &["get", "patch", "update"];

/// `api` with the custom resources of the stored definitions in front of it, when the
/// generated crate serves CustomResourceDefinitions; `api` as it is otherwise.
pub(crate) fn serve(api: Router, store: Store, config: Config) -> Router {
    let catalog = store.catalog();
    let Some(definitions) =
        catalog.groups.iter().filter(|gv| gv.group == GROUP).flat_map(|gv| gv.resources).find(|r| r.plural == PLURAL)
    else {
        return api;
    };
    let custom = Arc::new(Custom { store, config, definitions, static_catalog: catalog, discovery: Mutex::new(None) });
    api.layer(from_fn_with_state(custom, route))
}

struct Custom {
    store: Store,
    config: Config,
    /// `customresourcedefinitions` as the generated crate describes it.
    definitions: &'static ResourceInfo,
    static_catalog: &'static ApiCatalog,
    /// The discovery routes of the last set of definitions seen, by that set's key.
    discovery: Mutex<Option<(String, Router)>>,
}

async fn route(State(custom): State<Arc<Custom>>, request: Request, next: Next) -> Response {
    let path = request.uri().path().trim_start_matches('/').to_owned();
    let segments: Vec<&str> = path.split('/').collect();
    match segments.as_slice() {
        ["api"] | ["api", _] | ["apis"] | ["apis", _] | ["apis", _, _] | ["openapi", ..] => {
            match custom.discovery().await {
                Ok(router) => {
                    // The request as it came, without what the outer router's match added
                    // (its path parameters).
                    let (mut parts, body) = request.into_parts();
                    parts.extensions = Default::default();
                    router.oneshot(Request::from_parts(parts, body)).await.into_response()
                }
                Err(status) => status_response(&status),
            }
        }
        ["apis", group, version, rest @ ..] if custom.static_catalog.groups.iter().all(|gv| gv.group != *group) => {
            let Some(target) = Target::parse(group, version, rest, request.method()) else {
                return next.run(request).await;
            };
            match custom.resource(&target).await {
                Ok(Some((info, key))) => custom.handle(request, info, target, key).await,
                Ok(None) => next.run(request).await,
                Err(status) => status_response(&status),
            }
        }
        ["apis", GROUP, "v1", PLURAL, name] if request.method() == Method::DELETE => {
            let name = (*name).to_owned();
            let response = next.run(request).await;
            if response.status().is_success() {
                custom.delete_objects(&name).await;
            }
            response
        }
        _ => next.run(request).await,
    }
}

/// What a request under a custom group addresses.
struct Target {
    group: String,
    version: String,
    plural: String,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<&'static str>,
    verb: Verb,
}

impl Target {
    fn parse(group: &str, version: &str, rest: &[&str], method: &Method) -> Option<Target> {
        let (namespace, rest) = match rest {
            ["namespaces", namespace, rest @ ..] if !rest.is_empty() => (Some((*namespace).to_owned()), rest),
            _ => (None, rest),
        };
        let (plural, name, subresource) = match rest {
            [plural] => (plural, None, None),
            [plural, name] => (plural, Some((*name).to_owned()), None),
            [plural, name, "status"] => (plural, Some((*name).to_owned()), Some("status")),
            [plural, name, "scale"] => (plural, Some((*name).to_owned()), Some("scale")),
            _ => return None,
        };
        let verb = match (method.as_str(), name.is_some()) {
            ("GET", true) => Verb::Get,
            ("GET", false) => Verb::List,
            ("POST", false) => Verb::Create,
            ("PUT", true) => Verb::Update,
            ("PATCH", true) => Verb::Patch,
            ("DELETE", true) => Verb::Delete,
            ("DELETE", false) => Verb::DeleteCollection,
            _ => return None,
        };
        Some(Target {
            group: group.to_owned(),
            version: version.to_owned(),
            plural: (*plural).to_owned(),
            namespace,
            name,
            subresource,
            verb,
        })
    }
}

impl Custom {
    /// The storage key of the definition `name`.
    fn definition_key(&self, name: &str) -> String {
        format!("{}{name}", self.store.resource_prefix(self.definitions))
    }

    /// The resource a request addresses and the key of its definition, when an
    /// established definition serves it in the request's scope.
    async fn resource(&self, target: &Target) -> Result<Option<(&'static ResourceInfo, String)>, Status> {
        let key = self.definition_key(&format!("{}.{}", target.plural, target.group));
        let Some(stored) = self.store.storage().get(&key).await.map_err(crate::store::storage_status)? else {
            return Ok(None);
        };
        let Some(info) = resource_info(&stored.object, &target.version) else {
            return Ok(None);
        };
        // A cluster-scoped kind has no namespaced paths; a namespaced kind is created,
        // read and changed only in a namespace.
        let in_scope = match (info.scope, &target.namespace) {
            (Scope::Cluster, Some(_)) => false,
            (Scope::Namespaced, None) => target.name.is_none() && target.verb == Verb::List,
            _ => true,
        };
        Ok(in_scope.then_some((info, key)))
    }

    async fn handle(&self, request: Request, info: &'static ResourceInfo, target: Target, key: String) -> Response {
        let store = self.store.clone();
        kube_apigen::http::serve(request, &self.config, info, async move |mut call| {
            let mut options = options(&call.query())?;
            let (body, patch) = match target.verb {
                Verb::Create | Verb::Update => {
                    let body = call.body::<Value>()?;
                    unknown_fields(&call, info, &body)?;
                    (Some(body), None)
                }
                Verb::Delete | Verb::DeleteCollection => (call.optional_body::<Value>()?, None),
                Verb::Patch => (None, Some(call.patch(&[PatchType::Json, PatchType::Merge, PatchType::Apply])?)),
                _ => (None, None),
            };
            let watching = target.verb == Verb::List && options.watch == Some(true);
            let timeout = options.timeout_seconds;
            if watching {
                options.watch = None;
            }
            let request = dynamic::Request {
                verb: if watching { Verb::Watch } else { target.verb },
                resource: info,
                subresource: target.subresource,
                namespace: target.namespace,
                name: target.name,
                options,
                body,
                patch,
            };
            match store.handle(call.context(), request).await? {
                dynamic::Response::Object { code, body } => {
                    call.reply(StatusCode::from_u16(code).unwrap_or(StatusCode::OK), &body)
                }
                dynamic::Response::Watch(events) => call.watch(until_deleted(events, store, key), timeout),
            }
        })
        .await
    }

    /// Deletes every object of the definition `name`, which was just deleted.
    async fn delete_objects(&self, name: &str) {
        let Some((plural, group)) = name.split_once('.') else {
            return;
        };
        // The objects of every version are one collection.
        let prefix = self.store.group_resource_prefix(group, plural);
        let Ok(found) = self.store.storage().range(everything(&prefix)).await else {
            return;
        };
        for item in found.items {
            let _ = self.store.storage().delete(&item.key, item.revision).await;
        }
    }

    /// The discovery and OpenAPI routes of the generated crate's catalog with the served
    /// versions of the established definitions.
    async fn discovery(&self) -> Result<Router, Status> {
        let prefix = self.store.resource_prefix(self.definitions);
        let found = self.store.storage().range(everything(&prefix)).await.map_err(crate::store::storage_status)?;
        let key: String = found.items.iter().map(|item| format!("{}@{};", item.key, item.revision)).collect();
        let mut cached = self.discovery.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((seen, router)) = cached.as_ref()
            && *seen == key
        {
            return Ok(router.clone());
        }
        let definitions: Vec<Value> = found.items.iter().map(|item| (*item.object).clone()).collect();
        // Paths below `/api`, `/apis` and `/openapi` the documents do not have are the
        // API server's 404, as through the generated router.
        let router = kube_apigen::http::status_errors(discovery::routes(catalog(self.static_catalog, &definitions)));
        *cached = Some((key, router.clone()));
        Ok(router)
    }
}

/// The fields of a create or update body that its schema prunes, per `fieldValidation`:
/// 400 under `Strict`, a warning each under `Warn`.
fn unknown_fields(call: &kube_apigen::http::Call, info: &ResourceInfo, body: &Value) -> Result<(), Status> {
    let Some(schema) = schema_of(info) else {
        return Ok(());
    };
    let unknown = kube_apigen::structural::pruned_fields(&schema, body);
    if unknown.is_empty() {
        return Ok(());
    }
    let problems: Vec<String> =
        unknown.iter().map(|path| format!("unknown field {}", kube_apigen::go::fmt::quote(path))).collect();
    match call.field_validation() {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            problems.into_iter().for_each(|problem| call.warn(problem));
            Ok(())
        }
        FieldValidation::Strict => Err(Status::bad_request(format!(
            "{kind} in version {version} cannot be handled as a {kind}: strict decoding error: {}",
            problems.join(", "),
            kind = info.kind,
            version = kube_apigen::go::fmt::quote(info.version),
        ))),
    }
}

/// The query options of a custom resource request (the store reads them; `dryRun`,
/// `fieldManager` and `fieldValidation` are in the request's context).
fn options(query: &Query<'_>) -> Result<Options, Status> {
    Ok(Options {
        label_selector: query.string("labelSelector"),
        field_selector: query.string("fieldSelector"),
        limit: query.int("limit")?,
        continue_: query.string("continue"),
        resource_version: query.string("resourceVersion"),
        resource_version_match: query.string("resourceVersionMatch"),
        watch: query.bool("watch"),
        allow_watch_bookmarks: query.bool("allowWatchBookmarks"),
        send_initial_events: query.bool("sendInitialEvents"),
        timeout_seconds: query.int("timeoutSeconds")?,
        force: query.bool("force"),
        grace_period_seconds: query.int("gracePeriodSeconds")?,
        propagation_policy: query.string("propagationPolicy"),
        orphan_dependents: query.bool("orphanDependents"),
    })
}

/// `events`, ended once the definition at `key` is deleted, as the API server ends the
/// watches of a kind whose definition goes.
fn until_deleted(events: WatchStream<Value>, store: Store, key: String) -> WatchStream<Value> {
    let gone = async move {
        let Ok(revision) = store.storage().revision().await else {
            return;
        };
        let Ok(mut watch) = store.storage().watch(&key, revision).await else {
            return;
        };
        while let Some(item) = watch.next().await {
            match item {
                WatchItem::Event(event) if event.deleted && event.key == key => return,
                WatchItem::Failed(_) => return,
                _ => {}
            }
        }
    };
    Box::pin(events.take_until(Box::pin(gone)))
}

/// Every object under `prefix`, now.
fn everything(prefix: &str) -> RangeRequest<'_> {
    RangeRequest { prefix, start_after: None, revision: None, limit: None }
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

fn leak_all(texts: Vec<String>) -> &'static [&'static str] {
    Box::leak(texts.iter().map(|t| leak(t)).collect::<Vec<_>>().into_boxed_slice())
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn strings(value: &Value, pointer: &str) -> Vec<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn is_established(definition: &Value) -> bool {
    definition.pointer("/status/conditions").and_then(Value::as_array).into_iter().flatten().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("Established")
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// The storage version of an established definition, as a [`ResourceInfo`]: what the
/// objects of its kind are stored as.
pub(crate) fn storage_resource(definition: &Value) -> Option<&'static ResourceInfo> {
    let versions = definition.pointer("/spec/versions").and_then(Value::as_array)?;
    let storage = versions.iter().find(|v| v.get("storage") == Some(&Value::Bool(true)))?;
    resource_info(definition, storage.get("name").and_then(Value::as_str)?)
}

/// The served version `version` of an established definition, as a [`ResourceInfo`]:
/// interned, so each distinct description is made once per process.
fn resource_info(definition: &Value, version: &str) -> Option<&'static ResourceInfo> {
    static INTERNED: LazyLock<Mutex<HashMap<String, &'static ResourceInfo>>> = LazyLock::new(Default::default);
    if !is_established(definition) {
        return None;
    }
    let entry = definition.pointer("/spec/versions").and_then(Value::as_array)?.iter().find(|v| {
        v.get("name").and_then(Value::as_str) == Some(version) && v.get("served") == Some(&Value::Bool(true))
    })?;
    let spec = definition.get("spec")?;
    // What the description is made of: the names, scope and this version.
    let key = json!([text(spec, "/group"), spec.get("names"), spec.get("scope"), entry]).to_string();
    let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(info) = interned.get(&key) {
        return Some(info);
    }
    let names = spec.get("names")?;
    let kind = text(names, "/kind");
    let group = text(spec, "/group");
    let mut subresources = Vec::new();
    if entry.pointer("/subresources/status").is_some() {
        subresources.push(SubresourceInfo { name: "status", verbs: SUBRESOURCE_VERBS, kind: None });
    }
    let scale = entry.pointer("/subresources/scale").map(|scale| ScalePaths {
        spec_replicas: leak(text(scale, "/specReplicasPath")),
        status_replicas: leak(text(scale, "/statusReplicasPath")),
        label_selector: scale.get("labelSelectorPath").and_then(Value::as_str).map(leak),
    });
    if scale.is_some() {
        let kind = Some(KindInfo { group: "autoscaling", version: "v1", kind: "Scale" });
        subresources.push(SubresourceInfo { name: "scale", verbs: SUBRESOURCE_VERBS, kind });
    }
    let columns: Vec<Column> = entry
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|column| Column {
            name: leak(text(column, "/name")),
            type_: leak(text(column, "/type")),
            format: leak(text(column, "/format")),
            description: leak(text(column, "/description")),
            priority: column.get("priority").and_then(Value::as_i64).and_then(|p| i32::try_from(p).ok()).unwrap_or(0),
            json_path: leak(text(column, "/jsonPath")),
        })
        .collect();
    let deprecation_warning = (entry.get("deprecated") == Some(&Value::Bool(true))).then(|| {
        match entry.get("deprecationWarning").and_then(Value::as_str) {
            Some(warning) => leak(warning),
            None => leak(&format!("{group}/{version} {kind} is deprecated")),
        }
    });
    let info = ResourceInfo {
        group: leak(group),
        version: leak(version),
        kind: leak(kind),
        plural: leak(text(names, "/plural")),
        singular: leak(text(names, "/singular")),
        scope: if text(spec, "/scope") == "Cluster" { Scope::Cluster } else { Scope::Namespaced },
        list_kind: leak(text(names, "/listKind")),
        verbs: VERBS,
        short_names: leak_all(strings(names, "/shortNames")),
        categories: leak_all(strings(names, "/categories")),
        subresources: Box::leak(subresources.into_boxed_slice()),
        columns: Box::leak(columns.into_boxed_slice()),
        scale,
        deprecation_warning,
        storage_version: entry.get("storage") == Some(&Value::Bool(true)),
    };
    let info: &'static ResourceInfo = Box::leak(Box::new(info));
    interned.insert(key, info);
    let schema = entry.pointer("/schema/openAPIV3Schema").cloned().unwrap_or_else(|| json!({}));
    SCHEMAS.lock().unwrap_or_else(PoisonError::into_inner).insert(address(info), Arc::new(schema));
    Some(info)
}

/// The schemas of the descriptions [`resource_info`] made, by their address.
static SCHEMAS: LazyLock<Mutex<HashMap<usize, Arc<Value>>>> = LazyLock::new(Default::default);

fn address(info: &ResourceInfo) -> usize {
    std::ptr::from_ref(info) as usize
}

/// The `openAPIV3Schema` of a custom resource served from a stored definition: what its
/// objects are checked with ([`kube_apigen::structural`]); `None` for other resources.
pub(crate) fn schema_of(resource: &ResourceInfo) -> Option<Arc<Value>> {
    SCHEMAS.lock().unwrap_or_else(PoisonError::into_inner).get(&address(resource)).cloned()
}

/// `catalog` with a group-version per served version of the established `definitions`,
/// each with its OpenAPI document: interned by its content.
fn catalog(catalog: &'static ApiCatalog, definitions: &[Value]) -> &'static ApiCatalog {
    static INTERNED: LazyLock<Mutex<HashMap<String, &'static ApiCatalog>>> = LazyLock::new(Default::default);
    let mut versions: BTreeMap<(String, String), Vec<(&'static ResourceInfo, &Value)>> = BTreeMap::new();
    for definition in definitions {
        for entry in definition.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten() {
            if let Some(info) = resource_info(definition, text(entry, "/name")) {
                versions.entry((info.group.to_owned(), info.version.to_owned())).or_default().push((info, entry));
            }
        }
    }
    if versions.is_empty() {
        return catalog;
    }
    let key = format!("{:p}{}", catalog, json!(versions.values().flatten().map(|(_, e)| e).collect::<Vec<_>>()));
    let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = interned.get(&key) {
        return found;
    }
    let mut groups: Vec<GroupVersionInfo> = catalog.groups.to_vec();
    for ((group, version), kinds) in &versions {
        let mut resources: Vec<&'static ResourceInfo> = kinds.iter().map(|(info, _)| *info).collect();
        resources.sort_by_key(|info| info.plural);
        groups.push(GroupVersionInfo {
            group: leak(group),
            version: leak(version),
            resources: Box::leak(resources.into_boxed_slice()),
            openapi: leak(&openapi(group, version, kinds).to_string()),
        });
    }
    let combined: &'static ApiCatalog =
        Box::leak(Box::new(ApiCatalog { groups: Box::leak(groups.into_boxed_slice()), version: catalog.version }));
    interned.insert(key, combined);
    combined
}

/// The OpenAPI v3 document of one group-version of custom resources: each kind's schema
/// (the definition's, with `apiVersion`, `kind` and `metadata`) and list, and the item
/// path of each with the operations kubectl looks for (its PATCH names the kind and takes
/// `fieldValidation`, so kubectl leaves field validation to the server).
fn openapi(group: &str, version: &str, kinds: &[(&'static ResourceInfo, &Value)]) -> Value {
    let reversed: Vec<&str> = group.rsplit('.').collect();
    let prefix = format!("{}.{version}.", reversed.join("."));
    let mut schemas = Map::new();
    let mut paths = Map::new();
    for (info, entry) in kinds {
        let gvk = json!({ "group": group, "version": version, "kind": info.kind });
        let mut schema = entry.pointer("/schema/openAPIV3Schema").cloned().unwrap_or_else(|| json!({}));
        if let Some(fields) = schema.as_object_mut() {
            fields.insert("type".to_owned(), json!("object"));
            let properties = fields.entry("properties").or_insert_with(|| json!({}));
            if let Some(properties) = properties.as_object_mut() {
                properties.insert("apiVersion".to_owned(), json!({ "type": "string" }));
                properties.insert("kind".to_owned(), json!({ "type": "string" }));
                properties.insert("metadata".to_owned(), json!({ "type": "object" }));
            }
            fields.insert("x-kubernetes-group-version-kind".to_owned(), json!([gvk]));
        }
        let name = format!("{prefix}{}", info.kind);
        let list = json!({
            "type": "object",
            "required": ["items"],
            "properties": {
                "apiVersion": { "type": "string" },
                "kind": { "type": "string" },
                "metadata": { "type": "object" },
                "items": { "type": "array", "items": { "$ref": format!("#/components/schemas/{name}") } }
            },
            "x-kubernetes-group-version-kind": [{ "group": group, "version": version, "kind": info.list_kind }]
        });
        schemas.insert(format!("{prefix}{}", info.list_kind), list);
        let object = json!({ "application/json": { "schema": { "$ref": format!("#/components/schemas/{name}") } } });
        schemas.insert(name, schema);
        let operation = |action: &str| {
            json!({
                "operationId": format!("{action}{}", info.kind),
                "parameters": [{ "name": "fieldValidation", "in": "query", "schema": { "type": "string" } }],
                "responses": { "200": { "description": "OK", "content": object } },
                "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": gvk
            })
        };
        let scope = if info.is_namespaced() { "namespaces/{namespace}/" } else { "" };
        let path = format!("/apis/{group}/{version}/{scope}{}/{{name}}", info.plural);
        paths.insert(path, json!({ "get": operation("get"), "put": operation("put"), "patch": operation("patch") }));
    }
    json!({
        "openapi": "3.0.0",
        "info": { "title": "Kubernetes CRD Swagger", "version": "v0.1.0" },
        "paths": paths,
        "components": { "schemas": schemas }
    })
}
