//! The in-memory store: every resource of the catalog, as JSON objects, behind one
//! [`DynamicApi`] implementation.
//!
//! - One `resourceVersion` counter for the whole store; every committed write takes the
//!   next value. Writes commit under one lock, and the same lock orders the broadcast to
//!   watchers, so every watcher sees every acknowledged write once, in order.
//! - The last `history` changes are kept. They serve watches from an old
//!   `resourceVersion`, consistent list snapshots at an older version
//!   (`resourceVersionMatch=Exact`, continue tokens) and watchers that fell behind the
//!   broadcast buffer. Older versions answer 410 `Expired`.
//! - Objects are keyed by (namespace, name) per (group, plural) and listed in that order,
//!   as etcd keys sort.
//!
//! The module [`write`] has create, update, patch and delete, [`read`] get and list,
//! [`watch`] the watch streams, [`scale`] the `scale` subresource of custom resources.

mod object;
mod read;
mod scale;
mod watch;
mod write;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use support::ResourceInfo;
use support::Status;
use support::discovery::ApiCatalog;
use support::dynamic::{DynamicApi, Request, Response, Verb};
use support::http::Context;
use tokio::sync::broadcast;

use crate::hooks::Validators;
use crate::patch::SchemaCatalog;

pub use object::now;

/// How a [`Store`] behaves.
pub struct StoreConfig {
    /// What the store serves: used to find status subresources and the schemas of
    /// strategic merge patch and server-side apply.
    pub catalog: &'static ApiCatalog,
    /// Typed checks per (group, kind); see [`crate::hooks`].
    pub validators: Validators,
    /// How many changes to keep for watches, snapshots and lagging watchers.
    pub history: usize,
    /// How often a watch with `allowWatchBookmarks=true` gets a BOOKMARK.
    pub bookmark_interval: Duration,
    /// Changes buffered per watcher before it must catch up from the history.
    pub broadcast_capacity: usize,
    /// How long a read asking for a `resourceVersion` newer than the store's waits for it
    /// before answering 504 `Too large resource version`.
    pub too_large_wait: Duration,
}

impl StoreConfig {
    /// The defaults: 1000 changes of history, a bookmark a minute (the API server's
    /// frequency), 1024 buffered changes per watcher, 3 seconds of waiting.
    pub fn new(catalog: &'static ApiCatalog, validators: Validators) -> Self {
        StoreConfig {
            catalog,
            validators,
            history: 1000,
            bookmark_interval: Duration::from_secs(60),
            broadcast_capacity: 1024,
            too_large_wait: Duration::from_secs(3),
        }
    }
}

/// (group, plural).
type ResKey = (&'static str, &'static str);
/// (namespace, name); the namespace is empty for cluster-scoped objects.
type ObjKey = (String, String);

/// One committed write.
#[derive(Debug)]
pub(crate) struct Change {
    pub(crate) rv: u64,
    pub(crate) resource: ResKey,
    pub(crate) key: ObjKey,
    /// The object before the write; `None` for a create.
    pub(crate) prev: Option<Arc<Value>>,
    /// The object after the write; for a delete, the last state with the delete's
    /// `resourceVersion`, as a DELETED watch event carries it.
    pub(crate) object: Arc<Value>,
    pub(crate) deleted: bool,
}

struct State {
    rv: u64,
    objects: HashMap<ResKey, BTreeMap<ObjKey, Arc<Value>>>,
    history: VecDeque<Arc<Change>>,
    /// Every change after this version is in `history`.
    history_start: u64,
}

pub(crate) struct Inner {
    catalog: &'static ApiCatalog,
    validators: Validators,
    schemas: SchemaCatalog,
    status_subresources: HashSet<ResKey>,
    history: usize,
    bookmark_interval: Duration,
    too_large_wait: Duration,
    state: Mutex<State>,
    events: broadcast::Sender<Arc<Change>>,
    shutdown: tokio::sync::watch::Sender<bool>,
}

/// The store; cloning it clones a handle to the same data.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("resource_version", &self.resource_version()).finish()
    }
}

impl Store {
    pub fn new(config: StoreConfig) -> Self {
        let mut status_subresources = HashSet::new();
        for gv in config.catalog.groups {
            for resource in gv.resources {
                if resource.subresource("status").is_some() {
                    status_subresources.insert((gv.group, resource.plural));
                }
            }
        }
        let (events, _) = broadcast::channel(config.broadcast_capacity.max(1));
        let (shutdown, _) = tokio::sync::watch::channel(false);
        Store {
            inner: Arc::new(Inner {
                catalog: config.catalog,
                validators: config.validators,
                schemas: SchemaCatalog::from_catalog(config.catalog),
                status_subresources,
                history: config.history.max(1),
                bookmark_interval: config.bookmark_interval,
                too_large_wait: config.too_large_wait,
                state: Mutex::new(State { rv: 0, objects: HashMap::new(), history: VecDeque::new(), history_start: 0 }),
                events,
                shutdown,
            }),
        }
    }

    /// The store's current `resourceVersion`.
    pub fn resource_version(&self) -> u64 {
        self.inner.lock().rv
    }

    /// Ends every open watch (cleanly: their responses finish) and every watch started
    /// from now on: for graceful shutdown, after which in-flight requests finish.
    pub fn shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// The catalog the store serves.
    pub fn catalog(&self) -> &'static ApiCatalog {
        self.inner.catalog
    }
}

impl DynamicApi for Store {
    fn handle(&self, context: Context, request: Request) -> impl Future<Output = Result<Response, Status>> + Send {
        let inner = Arc::clone(&self.inner);
        async move { inner.handle(context, request).await }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn has_status(&self, resource: &ResourceInfo) -> bool {
        self.status_subresources.contains(&(resource.group, resource.plural))
    }

    async fn handle(self: Arc<Self>, context: Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        if let Some(sub) = request.subresource
            && !self.serves_subresource(resource, sub)
        {
            let verb = match request.verb {
                Verb::Get => "get",
                Verb::Update => "update",
                Verb::Patch => "patch",
                _ => "create",
            };
            return Err(Status::method_not_allowed(resource.group, resource.plural, verb));
        }
        if request.subresource == Some("scale") {
            return self.scale(&context, request);
        }
        let response = match request.verb {
            Verb::Get => self.get(&request),
            Verb::Create => self.create(&context, request),
            Verb::Update => self.update(&context, request),
            Verb::Patch => self.patch(&context, request),
            Verb::Delete => self.delete(&context, request),
            Verb::DeleteCollection => self.delete_collection(&context, request),
            Verb::List => self.list(&request).await,
            Verb::Watch => self.watch(&request).await,
        }?;
        Ok(in_version(resource, response))
    }

    /// The subresources the store implements: `status` where the catalog lists it,
    /// `scale` where the resource has scale paths, and the certificate signing request
    /// `approval`.
    fn serves_subresource(&self, resource: &ResourceInfo, sub: &str) -> bool {
        match sub {
            "status" => self.has_status(resource),
            "scale" => resource.scale.is_some(),
            "approval" => (resource.group, resource.plural) == ("certificates.k8s.io", "certificatesigningrequests"),
            _ => false,
        }
    }

    /// Commits a write under the lock: the next `resourceVersion`, the object stored (or
    /// removed), the change kept and broadcast. `object` gets the new version.
    fn commit(
        &self,
        state: &mut State,
        resource: &ResourceInfo,
        key: ObjKey,
        mut object: Value,
        deleted: bool,
    ) -> Arc<Value> {
        state.rv += 1;
        let rv = state.rv;
        object::set_meta(&mut object, "resourceVersion", Some(Value::String(rv.to_string())));
        let object = Arc::new(object);
        let res_key = (resource.group, resource.plural);
        let objects = state.objects.entry(res_key).or_default();
        let prev = if deleted { objects.remove(&key) } else { objects.insert(key.clone(), Arc::clone(&object)) };
        let change = Arc::new(Change { rv, resource: res_key, key, prev, object: Arc::clone(&object), deleted });
        if state.history.len() >= self.history
            && let Some(evicted) = state.history.pop_front()
        {
            state.history_start = evicted.rv;
        }
        state.history.push_back(Arc::clone(&change));
        // No receivers is fine: nobody watches.
        let _ = self.events.send(change);
        object
    }
}

/// The key of an object of `resource` in `namespace` named `name`.
fn key_of(resource: &ResourceInfo, namespace: Option<&str>, name: &str) -> ObjKey {
    let namespace = if resource.is_namespaced() { namespace.unwrap_or("") } else { "" };
    (namespace.to_owned(), name.to_owned())
}

/// A kind served in several versions (a custom resource's `v1` and `v1beta1`) is one set
/// of objects, each kept with the `apiVersion` it was written in; an answer shows them in
/// the version of the request, as the API server's `None` conversion of custom resources
/// does (only `apiVersion` changes). Objects, lists and watch events of the kind.
fn in_version(resource: &'static ResourceInfo, response: Response) -> Response {
    let api_version = resource.api_version();
    match response {
        Response::Object { code, mut body } => {
            convert(resource, &api_version, &mut body);
            Response::Object { code, body }
        }
        Response::Watch(events) => {
            use futures::StreamExt;
            Response::Watch(Box::pin(events.map(move |event| {
                event.map(|mut object| {
                    convert(resource, &api_version, &mut object);
                    object
                })
            })))
        }
    }
}

/// Sets `apiVersion` on an object of `resource`'s kind, or on the items of its list.
fn convert(resource: &ResourceInfo, api_version: &str, value: &mut Value) {
    let Some(fields) = value.as_object_mut() else {
        return;
    };
    let kind = fields.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind == resource.kind {
        if fields.get("apiVersion").and_then(Value::as_str) != Some(api_version) {
            fields.insert("apiVersion".to_owned(), Value::String(api_version.to_owned()));
        }
    } else if kind == resource.list_kind
        && let Some(items) = fields.get_mut("items").and_then(Value::as_array_mut)
    {
        for item in items {
            convert(resource, api_version, item);
        }
    }
}

/// An object answer.
fn reply(code: u16, body: Value) -> Response {
    Response::Object { code, body }
}
