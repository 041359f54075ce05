//! The HTTP server around a [`Store`]: the [`Server`] builder; what an operator needs
//! around the API ([`operable`]: health endpoints, `/metrics`, request logs, a request
//! timeout and an in-flight limit); and serving it with graceful shutdown.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube_apigen::Status;
use kube_apigen::auth::ANONYMOUS_USER;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::extract::{Request, State};
use kube_apigen::axum::http::{HeaderValue, Method, StatusCode, Version, header};
use kube_apigen::axum::middleware::{Next, from_fn, from_fn_with_state};
use kube_apigen::axum::response::{IntoResponse, Response};
use kube_apigen::axum::routing::get;
use kube_apigen::dynamic::{Dynamic, ServedApi};
use kube_apigen::http::{
    AlwaysAllow, Anonymous, Authenticator, Authorizer, Chain, Config, DEFAULT_MAX_BODY_BYTES, Union, drain_unread_body,
    guard,
};
use kube_apigen::status::reason;
use kube_apigen::{Resource, ResourceInfo};
use prometheus_client::metrics::gauge::Gauge;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::checks::typed_checks;
use crate::health;
use crate::metrics::{Metrics, RequestLabels};
use crate::storage::Storage;
use crate::strategy::Strategy;
use crate::{Store, StoreConfig};
use crate::{builtin, crd, events};

/// A Kubernetes-style API server for one generated crate's API: its [`Store`], and the
/// router that serves it with everything around it.
pub struct Server {
    store: Store,
    app: Router,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::Identity>,
}

/// Builds a [`Server`]: the API, then storage, strategies, authentication, TLS and
/// limits, each optional; [`ServerBuilder::build`] checks it all.
pub struct ServerBuilder {
    api: ServedApi<Store>,
    store: StoreConfig,
    storage: StorageChoice,
    authenticators: Vec<Arc<dyn Authenticator>>,
    authorization: Vec<AuthorizationMode>,
    max_body_bytes: usize,
    request_timeout: Duration,
    max_requests_inflight: usize,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::Identity>,
    errors: Vec<String>,
}

/// Where a [`ServerBuilder`] keeps the objects.
enum StorageChoice {
    Memory,
    #[cfg(feature = "redb")]
    DataDir(std::path::PathBuf),
    #[cfg(feature = "etcd")]
    Etcd {
        urls: Vec<String>,
        compaction_interval: Duration,
    },
    Given(Arc<dyn Storage>),
}

/// Why a [`Server`] cannot be built: every problem found, in the order of the builder's
/// calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub Vec<String>);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

impl std::error::Error for BuildError {}

impl Server {
    /// A builder serving `api`, a generated crate's `server::api()` (feature `dynamic`):
    /// in memory, anonymous callers as administrators, the API server's default limits
    /// (3 MiB bodies, 60 s per request, 400 requests at once), no strategies but the
    /// API server's own for CustomResourceDefinitions ([`crate::crd`]) and for namespaces,
    /// configmaps, secrets, services, pods, deployments, replica sets and endpoint slices
    /// ([`crate::builtin`]) and for events
    /// ([`crate::events`]) when the API serves them.
    pub fn builder(api: ServedApi<Store>) -> ServerBuilder {
        let mut store = StoreConfig::new(api.catalog, typed_checks(api.typed_checks));
        // An API without `apiextensions.k8s.io` has no definitions to look after.
        let _ = store.strategy(crd::GROUP, crd::PLURAL, crd::CustomResourceDefinitions);
        let _ = store.strategy("", "namespaces", builtin::Namespaces);
        let _ = store.strategy("", "configmaps", builtin::ConfigMaps);
        let _ = store.strategy("discovery.k8s.io", "endpointslices", builtin::EndpointSlices);
        let _ = store.strategy("", "events", events::Events::CORE);
        let _ = store.strategy(events::GROUP, "events", events::Events::EVENTS_V1);
        let _ = store.strategy("", "secrets", builtin::Secrets);
        let _ = store.strategy("", "services", builtin::Services);
        let _ = store.strategy("", "pods", builtin::Pods);
        let _ = store.strategy("apps", "deployments", builtin::Workloads::Deployments);
        let _ = store.strategy("apps", "replicasets", builtin::Workloads::ReplicaSets);
        ServerBuilder {
            api,
            store,
            storage: StorageChoice::Memory,
            authenticators: Vec::new(),
            authorization: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            request_timeout: Duration::from_secs(60),
            max_requests_inflight: 400,
            #[cfg(feature = "tls")]
            tls: None,
            errors: Vec::new(),
        }
    }

    /// The store, for reading and writing objects beside the HTTP API.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Everything the server answers, as one router: to serve it another way, or to call
    /// it in process (it is a `tower::Service`).
    pub fn router(&self) -> Router {
        self.app.clone()
    }

    /// Serves on `listener` (over TLS when the builder was given an identity) until
    /// `shutdown` completes; then stops accepting connections, ends every watch cleanly
    /// and returns once the requests in flight have been answered.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        #[cfg(feature = "tls")]
        if let Some(identity) = self.tls {
            let listener = crate::tls::TlsListener::new(listener, identity).map_err(std::io::Error::other)?;
            return serve_router(listener, self.app, self.store, shutdown).await;
        }
        serve_router(listener, self.app, self.store, shutdown).await
    }

    /// Whether [`Server::serve`] speaks HTTPS.
    pub fn is_tls(&self) -> bool {
        #[cfg(feature = "tls")]
        return self.tls.is_some();
        #[cfg(not(feature = "tls"))]
        false
    }
}

impl ServerBuilder {
    /// Keeps the objects in `storage` (default: in memory, with the store's history).
    pub fn storage(mut self, storage: Arc<dyn Storage>) -> Self {
        self.storage = StorageChoice::Given(storage);
        self
    }

    /// Keeps the objects in the data directory `directory` (an embedded database, created
    /// if missing): a write is answered once it is on disk, and a restart keeps everything.
    #[cfg(feature = "redb")]
    pub fn data_dir(mut self, directory: impl Into<std::path::PathBuf>) -> Self {
        self.storage = StorageChoice::DataDir(directory.into());
        self
    }

    /// Keeps the objects in etcd (v3 API) at `urls`, compacting its history every
    /// `compaction_interval` (`Duration::ZERO`: never) as kube-apiserver does. Several
    /// servers on one etcd serve one API.
    #[cfg(feature = "etcd")]
    pub fn etcd(mut self, urls: &[String], compaction_interval: Duration) -> Self {
        self.storage = StorageChoice::Etcd { urls: urls.to_vec(), compaction_interval };
        self
    }

    /// Registers `strategy` for the resource of the generated model `R` (every version of
    /// it). A resource the API does not serve is an error of [`ServerBuilder::build`].
    pub fn strategy<R: Resource>(self, strategy: impl Strategy) -> Self {
        let info: &ResourceInfo = R::INFO;
        self.strategy_for(info.group, info.plural, strategy)
    }

    /// Registers `strategy` for the resource `plural` of `group` (`""`: the core group).
    pub fn strategy_for(mut self, group: &str, plural: &str, strategy: impl Strategy) -> Self {
        if let Err(error) = self.store.strategy(group, plural, strategy) {
            self.errors.push(error.to_string());
        }
        self
    }

    /// Adds a way to tell who calls (default: none, everyone is an anonymous
    /// administrator). With several, the first that names a user decides, in the order
    /// added ([`kube_apigen::http::Union`]); kube-apiserver asks the front proxy's headers
    /// first, then client certificates, then tokens.
    pub fn authenticator(mut self, authenticator: Arc<dyn Authenticator>) -> Self {
        self.authenticators.push(authenticator);
        self
    }

    /// What callers may do: the authorizers asked in order, as kube-apiserver's
    /// `--authorization-mode` lists them (default: [`AuthorizationMode::AlwaysAllow`]).
    /// [`AuthorizationMode::Rbac`] needs the API to serve `rbac.authorization.k8s.io/v1`.
    pub fn authorization(mut self, modes: impl IntoIterator<Item = AuthorizationMode>) -> Self {
        self.authorization = modes.into_iter().collect();
        self
    }

    /// Serves HTTPS (HTTP/2 and HTTP/1.1) with `identity`.
    #[cfg(feature = "tls")]
    pub fn tls(mut self, identity: crate::tls::Identity) -> Self {
        self.tls = Some(identity);
        self
    }

    /// Largest request body accepted; larger ones are answered 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a request other than a watch may take before it is answered 504.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// How many requests other than watches are served at once; more are answered 429.
    /// 0: no limit.
    pub fn max_requests_inflight(mut self, requests: usize) -> Self {
        self.max_requests_inflight = requests;
        self
    }

    /// Adjusts the store's configuration: history, bookmarks, key prefix, waits.
    pub fn configure_store(mut self, configure: impl FnOnce(&mut StoreConfig)) -> Self {
        configure(&mut self.store);
        self
    }

    /// The server, or every problem of its configuration. Starts etcd's compaction, so
    /// call it within a Tokio runtime.
    pub fn build(mut self) -> Result<Server, BuildError> {
        let storage = self.open_storage();
        let storage = match storage {
            Ok(storage) if self.errors.is_empty() => storage,
            Ok(_) => return Err(BuildError(self.errors)),
            Err(error) => {
                self.errors.push(error);
                return Err(BuildError(self.errors));
            }
        };
        let tables = self
            .store
            .strategies
            .iter()
            .filter_map(|(&key, strategy)| strategy.table().map(|table| (key, table)))
            .collect();
        let reviewer = crate::reviews::register(&mut self.store);
        let rbac = self.authorization.contains(&AuthorizationMode::Rbac);
        let deciders = rbac.then(|| crate::rbac::register_escalation_checks(&mut self.store));
        let store = Store::with_storage(self.store, storage);
        let authorizer =
            authorizer(&self.authorization, &store, deciders.as_ref()).map_err(|error| BuildError(vec![error]))?;
        // The reviews and the escalation checks ask the authorizer of the requests themselves.
        let _ = reviewer.set(Arc::clone(&authorizer));
        if let Some(deciders) = deciders {
            let _ = deciders.authorizer.set(Arc::clone(&authorizer));
        }
        let authenticator: Option<Arc<dyn Authenticator>> = match self.authenticators.len() {
            0 => None,
            1 => self.authenticators.pop(),
            _ => Some(Arc::new(Union(std::mem::take(&mut self.authenticators)))),
        };
        let config = Config {
            max_body_bytes: self.max_body_bytes,
            authenticator: authenticator.clone().unwrap_or_else(|| Arc::new(Anonymous)),
            authorizer,
            tables,
        };
        let gate = Arc::new(config.clone());
        let api = (self.api.router)(Dynamic(store.clone()), config.clone());
        let api = crate::custom::serve(api, store.clone(), config);
        let operations = Operations {
            request_timeout: self.request_timeout,
            max_requests_inflight: self.max_requests_inflight,
            metrics: Arc::new(Metrics::new()),
            authenticator,
            gate,
        };
        let app = operable(api, store.clone(), operations);
        Ok(Server {
            store,
            app,
            #[cfg(feature = "tls")]
            tls: self.tls,
        })
    }

    fn open_storage(&self) -> Result<Arc<dyn Storage>, String> {
        Ok(match &self.storage {
            StorageChoice::Memory => Arc::new(self.store.memory_storage()),
            #[cfg(feature = "redb")]
            StorageChoice::DataDir(directory) => Arc::new(crate::storage::MemoryStorage::durable(
                directory,
                self.store.history,
                self.store.broadcast_capacity,
            )?),
            #[cfg(feature = "etcd")]
            StorageChoice::Etcd { urls, compaction_interval } => {
                let etcd: Arc<dyn Storage> = Arc::new(crate::storage::etcd::EtcdStorage::new(urls)?);
                if !compaction_interval.is_zero() {
                    tokio::spawn(crate::storage::compact_every(Arc::clone(&etcd), *compaction_interval));
                }
                etcd
            }
            StorageChoice::Given(storage) => Arc::clone(storage),
        })
    }
}

/// What [`operable`] adds around the API.
pub struct Operations {
    /// How long a request other than a watch may take before it is answered 504.
    pub request_timeout: Duration,
    /// How many requests other than watches may be served at once; more are answered
    /// 429 with `Retry-After: 1`. 0: no limit.
    pub max_requests_inflight: usize,
    /// Where requests are counted, and what `/metrics` serves.
    pub metrics: Arc<Metrics>,
    /// Who the request logs name (the server's authenticator, or anonymous).
    pub authenticator: Option<Arc<dyn Authenticator>>,
    /// How every request, the health endpoints and `/metrics` included, is authenticated
    /// and authorized ([`kube_apigen::http::guard`]).
    pub gate: Arc<Config>,
}

struct Operated {
    operations: Operations,
    permits: Option<Arc<Semaphore>>,
}

/// `api` with `/healthz`, `/livez`, `/readyz` ([`health`]) and `/metrics` beside it, and
/// every request authenticated and authorized (`operations.gate`), counted, timed, logged (`tracing`, target `kube_apigen_registry::request`:
/// method, path, HTTP version, status, latency, user, user agent), limited in time and in
/// number (watches are long-running: neither). What a handler leaves of a request body is
/// read before the answer ([`kube_apigen::http::drain_unread_body`]), also for the answers
/// of these routes and the 429 of the in-flight limit, so that the connection carries the
/// next request.
pub fn operable(api: Router, store: Store, operations: Operations) -> Router {
    let metrics = Arc::clone(&operations.metrics);
    let scraped = store.clone();
    let metrics_route = Router::new().route(
        "/metrics",
        get(move || async move {
            let text = metrics.scrape(&scraped).await;
            ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], text)
        }),
    );
    let permits =
        (operations.max_requests_inflight > 0).then(|| Arc::new(Semaphore::new(operations.max_requests_inflight)));
    let gate = Arc::clone(&operations.gate);
    let operated = Arc::new(Operated { operations, permits });
    let routes = health::routes(store)
        .merge(metrics_route)
        .method_not_allowed_fallback(|| async {
            let message = "the server does not allow this method on the requested resource";
            status_response(&Status::failure(405, reason::METHOD_NOT_ALLOWED, message))
        })
        .fallback_service(api);
    guard(routes, gate).layer(from_fn_with_state(operated, observe)).layer(from_fn(drain_unread_body))
}

/// An authorizer of kube-apiserver's `--authorization-mode`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthorizationMode {
    /// `AlwaysAllow`: everything is allowed.
    AlwaysAllow,
    /// `RBAC`: the Roles, ClusterRoles and their bindings of `rbac.authorization.k8s.io/v1`
    /// in the store ([`crate::rbac`]); members of `system:masters` may do everything.
    Rbac,
}

impl std::str::FromStr for AuthorizationMode {
    type Err = String;

    /// A mode by its flag name: `AlwaysAllow` or `RBAC`.
    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "AlwaysAllow" => Ok(AuthorizationMode::AlwaysAllow),
            "RBAC" => Ok(AuthorizationMode::Rbac),
            other => Err(format!("authorization-mode {other:?} is not a valid mode (AlwaysAllow, RBAC)")),
        }
    }
}

/// The authorizer of `modes`, in order (no modes is [`AlwaysAllow`]); the RBAC
/// authorizer among them goes to `deciders` too.
fn authorizer(
    modes: &[AuthorizationMode],
    store: &Store,
    deciders: Option<&crate::rbac::Deciders>,
) -> Result<Arc<dyn Authorizer>, String> {
    let mut chain: Vec<Arc<dyn Authorizer>> = Vec::new();
    for mode in modes {
        chain.push(match mode {
            AuthorizationMode::AlwaysAllow => Arc::new(AlwaysAllow),
            AuthorizationMode::Rbac => {
                let rbac = Arc::new(crate::rbac::Rbac::new(store.clone())?);
                if let Some(deciders) = deciders {
                    let _ = deciders.rbac.set(Arc::clone(&rbac));
                }
                rbac
            }
        });
    }
    Ok(match chain.len() {
        0 => Arc::new(AlwaysAllow),
        1 => chain.remove(0),
        _ => Arc::new(Chain(chain)),
    })
}

/// Decrements a gauge when dropped: when a request is answered, or a watch's body ends.
struct Held(Gauge);

impl Held {
    fn new(gauge: Gauge) -> Self {
        gauge.inc();
        Held(gauge)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Paths served whatever the load: probes and scrapes must not be refused.
fn exempt(path: &str) -> bool {
    ["/healthz", "/livez", "/readyz", "/metrics"].iter().any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

async fn observe(State(operated): State<Arc<Operated>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let operations = &operated.operations;
    let labels = RequestLabels::of(request.method(), request.uri());
    let method = request.method().clone();
    let version = request.version();
    let path = request.uri().path().to_owned();
    let user_agent = request.headers().get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let user = operations
        .authenticator
        .as_ref()
        .and_then(|authenticator| authenticator.authenticate(request.headers(), request.extensions()).ok().flatten())
        .map(|user| user.username)
        .unwrap_or_else(|| ANONYMOUS_USER.to_owned());
    let response = if labels.verb == "watch" {
        let open = Held::new(operations.metrics.longrunning(&labels));
        let (parts, body) = next.run(request).await.into_parts();
        let body = Body::from_stream(body.into_data_stream().map(move |chunk| {
            let _ = &open;
            chunk
        }));
        Response::from_parts(parts, body)
    } else {
        let permit = match &operated.permits {
            Some(permits) if !exempt(&path) => match Arc::clone(permits).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    return answered(
                        operations,
                        &labels,
                        started,
                        too_many_requests(),
                        Logged { method: &method, version, path: &path, user: &user, user_agent: &user_agent },
                    );
                }
            },
            _ => None,
        };
        let _inflight = Held::new(operations.metrics.inflight(&labels));
        let response = match tokio::time::timeout(operations.request_timeout, next.run(request)).await {
            Ok(response) => response,
            Err(_) => status_response(&Status::failure(
                504,
                reason::TIMEOUT,
                "Timeout: request did not complete within requested timeout - context deadline exceeded",
            )),
        };
        drop(permit);
        response
    };
    answered(
        operations,
        &labels,
        started,
        response,
        Logged { method: &method, version, path: &path, user: &user, user_agent: &user_agent },
    )
}

/// What the log line of a request names.
struct Logged<'a> {
    method: &'a Method,
    version: Version,
    path: &'a str,
    user: &'a str,
    user_agent: &'a str,
}

/// Counts and logs an answer.
fn answered(
    operations: &Operations,
    labels: &RequestLabels,
    started: Instant,
    response: Response,
    logged: Logged<'_>,
) -> Response {
    let latency = started.elapsed();
    let code = response.status().as_u16();
    operations.metrics.answered(labels, code, latency.as_secs_f64());
    tracing::info!(
        target: "kube_apigen_registry::request",
        method = %logged.method,
        path = logged.path,
        version = ?logged.version,
        status = code,
        latency_ms = latency.as_secs_f64() * 1000.0,
        user = logged.user,
        user_agent = logged.user_agent,
        "request"
    );
    response
}

/// 429 `TooManyRequests` with `Retry-After: 1`, as the API server's in-flight limit answers.
fn too_many_requests() -> Response {
    let mut status = Status::failure(429, reason::TOO_MANY_REQUESTS, "Too many requests, please try again later.");
    status.details = Some(kube_apigen::StatusDetails { retry_after_seconds: Some(1), ..Default::default() });
    let mut response = status_response(&status);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A `Status` as a JSON answer with its code.
pub(crate) fn status_response(status: &Status) -> Response {
    let code = StatusCode::from_u16(status.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(status).unwrap_or_default();
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Serves `app`, a router over `store`, on `listener` (a `tokio::net::TcpListener`, or a
/// `tls::TlsListener`) until `shutdown` completes; then stops accepting connections,
/// ends every watch cleanly ([`Store::shutdown`]) and returns once the requests in flight
/// have been answered.
pub async fn serve_router<L>(
    listener: L,
    app: Router,
    store: Store,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: kube_apigen::axum::serve::Listener,
    L::Addr: Clone + Send + Sync + std::fmt::Debug + 'static,
    for<'a> L::Addr:
        kube_apigen::axum::extract::connect_info::Connected<kube_apigen::axum::serve::IncomingStream<'a, L>>,
{
    // Each request carries its connection's `ConnectInfo<L::Addr>`: the TLS client's
    // certificates, for the authenticators that read them.
    kube_apigen::axum::serve(listener, app.into_make_service_with_connect_info::<L::Addr>())
        .with_graceful_shutdown(async move {
            shutdown.await;
            store.shutdown();
        })
        .await
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
