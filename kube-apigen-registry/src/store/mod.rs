//! The store: every resource of the catalog, as JSON objects in a [`Storage`], behind
//! one [`DynamicApi`] implementation.
//!
//! - `resourceVersion` is the storage's revision: one counter for the whole store, every
//!   committed write takes the next value, and watches see every write once, in order.
//! - Each object lives under its key (`<prefix>/<group>/<resource>/<namespace>/<name>`,
//!   [`crate::storage::keys`]); a list or watch covers a key prefix, in key order, as
//!   etcd keys sort.
//! - Writes are optimistic: read, build the next object, commit it guarded by the
//!   revision read, and try again when another write came in between.
//! - Reads at older versions (`resourceVersionMatch=Exact`, continue tokens) and watches
//!   from an old `resourceVersion` go as far back as the storage's history; older ones
//!   answer 410 `Expired`.
//!
//! The module `write` has create, update, patch and delete, `read` get and list, `watch`
//! the watch streams, `scale` the `scale` subresource of custom resources, `collector`
//! the garbage collector of `ownerReferences`.

mod collector;
mod namespaces;
pub(crate) use namespaces::NAMESPACE_FINALIZER;
mod read;
mod scale;
mod watch;
mod write;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use kube_apigen::ResourceInfo;
use kube_apigen::Status;
use kube_apigen::discovery::ApiCatalog;
use kube_apigen::dynamic::{DynamicApi, Request, Response, Verb};
use kube_apigen::http::Context;
use serde_json::Value;

use crate::checks::TypedChecks;
use crate::storage::keys::Keys;
use crate::storage::{KeyValue, MemoryStorage, Storage, StorageError};
use crate::strategy::{DefaultStrategy, Strategy};
use kube_apigen_patch::SchemaCatalog;

/// How a [`Store`] behaves.
pub struct StoreConfig {
    /// What the store serves: used to find status subresources and the schemas of
    /// strategic merge patch and server-side apply.
    pub catalog: &'static ApiCatalog,
    /// Typed checks per (group, version, kind); see [`crate::checks`].
    pub typed_checks: TypedChecks,
    /// What resources do beyond the generic store, by (group, plural); see
    /// [`StoreConfig::strategy`].
    pub strategies: BTreeMap<(&'static str, &'static str), Arc<dyn Strategy>>,
    /// The in-memory backend's history: how many changes to keep for watches, snapshots
    /// and lagging watchers.
    pub history: usize,
    /// How often a watch with `allowWatchBookmarks=true` gets a BOOKMARK.
    pub bookmark_interval: Duration,
    /// The in-memory backend's changes buffered per watcher before it must catch up from
    /// the history.
    pub broadcast_capacity: usize,
    /// How long a read asking for a `resourceVersion` newer than the store's waits for it
    /// before answering 504 `Too large resource version`.
    pub too_large_wait: Duration,
    /// The first segment of every key (`--etcd-prefix`).
    pub key_prefix: String,
    /// Whether namespaces have the API server's lifecycle when the catalog serves core/v1
    /// namespaces (on by default): the system namespaces exist from the first request, and
    /// a create in a namespace that is missing or being deleted is refused, as
    /// kube-apiserver's `NamespaceLifecycle` admission does. Off (as
    /// `--disable-admission-plugins=NamespaceLifecycle`, and without the system
    /// namespaces), objects go in any namespace. Deleting a namespace empties it either way.
    pub namespace_lifecycle: bool,
}

impl StoreConfig {
    /// The defaults: 1000 changes of history, a bookmark a minute (the API server's
    /// frequency), 1024 buffered changes per watcher, 3 seconds of waiting, keys under
    /// `/registry`, the namespace lifecycle on.
    pub fn new(catalog: &'static ApiCatalog, typed_checks: TypedChecks) -> Self {
        StoreConfig {
            catalog,
            typed_checks,
            strategies: BTreeMap::new(),
            history: 1000,
            bookmark_interval: Duration::from_secs(60),
            broadcast_capacity: 1024,
            too_large_wait: Duration::from_secs(3),
            key_prefix: "/registry".to_owned(),
            namespace_lifecycle: true,
        }
    }

    /// The in-memory backend this configuration describes.
    pub fn memory_storage(&self) -> MemoryStorage {
        MemoryStorage::new(self.history, self.broadcast_capacity)
    }

    /// Registers `strategy` for the resource `plural` of `group` (every version of it);
    /// an error naming the resource when the catalog serves no such resource.
    pub fn strategy(
        &mut self,
        group: &str,
        plural: &str,
        strategy: impl Strategy,
    ) -> Result<&mut Self, UnknownResource> {
        let served = self.catalog.groups.iter().filter(|gv| gv.group == group).find_map(|gv| {
            gv.resources.iter().find(|resource| resource.plural == plural).map(|resource| (gv.group, resource.plural))
        });
        let Some(key) = served else {
            return Err(UnknownResource { group: group.to_owned(), plural: plural.to_owned() });
        };
        self.strategies.insert(key, Arc::new(strategy));
        Ok(self)
    }
}

/// A strategy for a resource the catalog does not serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownResource {
    /// The group named (`""`: the core group).
    pub group: String,
    /// The resource named, by its plural.
    pub plural: String,
}

impl std::fmt::Display for UnknownResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let group = if self.group.is_empty() { "the core group" } else { &self.group };
        write!(
            f,
            "a strategy is registered for the resource \"{}\" of {group}, which the served API does not have",
            self.plural
        )
    }
}

impl std::error::Error for UnknownResource {}

pub(crate) struct Inner {
    catalog: &'static ApiCatalog,
    typed_checks: TypedChecks,
    strategies: BTreeMap<(&'static str, &'static str), Arc<dyn Strategy>>,
    schemas: Arc<SchemaCatalog>,
    status_subresources: HashSet<(&'static str, &'static str)>,
    bookmark_interval: Duration,
    too_large_wait: Duration,
    /// The core/v1 namespaces resource, when the catalog serves it and namespaces have
    /// their lifecycle ([`StoreConfig::namespace_lifecycle`]).
    namespaces: Option<&'static ResourceInfo>,
    storage: Arc<dyn Storage>,
    keys: Keys,
    shutdown: tokio::sync::watch::Sender<bool>,
    /// Set once the garbage collector runs.
    collector: std::sync::OnceLock<()>,
    /// Set once the system namespaces exist.
    system_namespaces: tokio::sync::OnceCell<()>,
}

/// The store; cloning it clones a handle to the same data.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("keys", &self.inner.keys).finish()
    }
}

impl Store {
    /// A store in memory.
    pub fn new(config: StoreConfig) -> Self {
        let storage = Arc::new(config.memory_storage());
        Self::with_storage(config, storage)
    }

    /// A store on `storage`.
    pub fn with_storage(config: StoreConfig, storage: Arc<dyn Storage>) -> Self {
        let mut status_subresources = HashSet::new();
        for gv in config.catalog.groups {
            for resource in gv.resources {
                if resource.subresource("status").is_some() {
                    status_subresources.insert((gv.group, resource.plural));
                }
            }
        }
        let (shutdown, _) = tokio::sync::watch::channel(false);
        Store {
            inner: Arc::new(Inner {
                catalog: config.catalog,
                typed_checks: config.typed_checks,
                strategies: config.strategies,
                schemas: config.catalog.derived(|catalog| {
                    SchemaCatalog::from_documents(catalog.groups.iter().map(|gv| (gv.group, gv.version, gv.openapi)))
                }),
                status_subresources,
                bookmark_interval: config.bookmark_interval,
                too_large_wait: config.too_large_wait,
                namespaces: config.namespace_lifecycle.then(|| namespaces::served(config.catalog)).flatten(),
                storage,
                keys: Keys::new(&config.key_prefix),
                shutdown,
                collector: std::sync::OnceLock::new(),
                system_namespaces: tokio::sync::OnceCell::new(),
            }),
        }
    }

    /// The store's current `resourceVersion`.
    pub async fn resource_version(&self) -> Result<u64, StorageError> {
        self.inner.storage.revision().await
    }

    /// The backend the store keeps its objects in.
    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.inner.storage
    }

    /// The key prefix of every object of `resource`.
    pub fn resource_prefix(&self, resource: &ResourceInfo) -> String {
        self.inner.keys.resource(resource)
    }

    /// The key prefix of every object of the resource `plural` of `group`, in every
    /// version.
    pub fn group_resource_prefix(&self, group: &str, plural: &str) -> String {
        self.inner.keys.group_resource(group, plural)
    }

    /// Ends every open watch (cleanly: their responses finish) and every watch started
    /// from now on: for graceful shutdown, after which in-flight requests finish.
    pub fn shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// Whether [`Store::shutdown`] was called.
    pub fn is_shutting_down(&self) -> bool {
        *self.inner.shutdown.borrow()
    }

    /// The catalog the store serves.
    pub fn catalog(&self) -> &'static ApiCatalog {
        self.inner.catalog
    }

    /// How many objects each resource of the catalog has (`<plural>.<group>`, or
    /// `<plural>` in the core group); resources the backend cannot count now are left out.
    pub async fn object_counts(&self) -> Vec<(String, usize)> {
        let mut resources: Vec<(&str, &str)> = Vec::new();
        for gv in self.inner.catalog.groups {
            for resource in gv.resources {
                if !resources.contains(&(gv.group, resource.plural)) {
                    resources.push((gv.group, resource.plural));
                }
            }
        }
        let mut counts = Vec::new();
        for (group, plural) in resources {
            let prefix = self.inner.keys.group_resource(group, plural);
            if let Ok(count) = self.inner.storage.count(&prefix).await {
                let name = if group.is_empty() { plural.to_owned() } else { format!("{plural}.{group}") };
                counts.push((name, count));
            }
        }
        counts
    }
}

impl DynamicApi for Store {
    fn handle(&self, context: Context, request: Request) -> impl Future<Output = Result<Response, Status>> + Send {
        let inner = Arc::clone(&self.inner);
        async move {
            inner.start_collector();
            inner.create_system_namespaces().await;
            inner.handle(context, request).await
        }
    }
}

impl Inner {
    /// Whether the resource has a status subresource: in the catalog, or in its own
    /// description (a custom resource of a stored definition).
    fn has_status(&self, resource: &ResourceInfo) -> bool {
        self.status_subresources.contains(&(resource.group, resource.plural))
            || resource.subresource("status").is_some()
    }

    /// The strategy of `resource`: the registered one, or only the generic behaviour.
    fn strategy(&self, resource: &ResourceInfo) -> &dyn Strategy {
        match self.strategies.get(&(resource.group, resource.plural)) {
            Some(strategy) => strategy.as_ref(),
            None => &DefaultStrategy,
        }
    }

    async fn handle(self: Arc<Self>, context: Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        if let Some(sub) = request.subresource
            && !self.serves_subresource(resource, sub)
        {
            let verb = match request.verb {
                verb @ (Verb::Get | Verb::Update | Verb::Patch) => verb,
                _ => Verb::Create,
            };
            return Err(Status::method_not_allowed(resource.group, resource.plural, verb.as_str()));
        }
        if request.subresource == Some("scale") {
            return self.scale(&context, request).await;
        }
        if request.verb == Verb::Create
            && let Some(answer) = self.strategy(resource).answer()
        {
            return self.answer(answer, &context, request).await.map(|response| in_version(resource, response));
        }
        let response = match request.verb {
            Verb::Get => self.get(&request).await,
            Verb::Create => self.create(&context, request).await,
            Verb::Update => self.update(&context, request).await,
            Verb::Patch => self.patch(&context, request).await,
            Verb::Delete => self.delete(&context, request).await,
            Verb::DeleteCollection => self.delete_collection(&context, request).await,
            Verb::List => self.list(&request).await,
            Verb::Watch => self.watch(&request).await,
        }?;
        Ok(in_version(resource, response))
    }

    /// The subresources the store implements: `status` where the catalog lists it,
    /// `scale` where the resource has scale paths, and those its strategy serves.
    fn serves_subresource(&self, resource: &ResourceInfo, sub: &str) -> bool {
        match sub {
            "status" => self.has_status(resource),
            "scale" => resource.scale.is_some(),
            other => self.strategy(resource).subresources().contains(&other),
        }
    }

    /// The key of the object a request names.
    fn key_of(&self, request: &Request) -> String {
        self.keys.object(request.resource, request.namespace.as_deref(), request.name.as_deref().unwrap_or(""))
    }

    /// The object a request names; 404 `NotFound` when there is none.
    async fn stored(&self, request: &Request) -> Result<KeyValue, Status> {
        let resource = request.resource;
        let found = self.storage.get(&self.key_of(request)).await.map_err(storage_status)?;
        found.ok_or_else(|| Status::not_found(resource.group, resource.plural, request.name.as_deref().unwrap_or("")))
    }
}

/// The `Status` of a failed storage operation, as the API server answers it: 410
/// `Expired` for a compacted revision, 504 for a revision the backend does not have yet
/// or a timeout, 503 when the backend cannot be reached.
pub(crate) fn storage_status(error: StorageError) -> Status {
    match error {
        StorageError::Compacted { requested, oldest } => Status::too_old_resource_version(requested, oldest),
        StorageError::FutureRevision { requested, current } => read::too_large(requested, current),
        StorageError::Timeout(message) => {
            Status::failure(504, kube_apigen::status::reason::TIMEOUT, format!("storage timeout: {message}"))
        }
        StorageError::Unavailable(message) => Status::failure(
            503,
            kube_apigen::status::reason::SERVICE_UNAVAILABLE,
            format!("storage unavailable: {message}"),
        ),
    }
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
