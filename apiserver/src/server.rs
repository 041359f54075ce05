//! The HTTP server around a [`Store`]: the generated router; what an operator needs around
//! it ([`operable`]: health endpoints, `/metrics`, request logs, a request timeout and an
//! in-flight limit); and serving it with graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube_apigen::Status;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::extract::{Request, State};
use kube_apigen::axum::http::{HeaderValue, Method, StatusCode, Version, header};
use kube_apigen::axum::middleware::{Next, from_fn_with_state};
use kube_apigen::axum::response::{IntoResponse, Response};
use kube_apigen::axum::routing::get;
use kube_apigen::dynamic::Dynamic;
use kube_apigen::http::{Anonymous, Authenticator, Config};
use kube_apigen::status::reason;
use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::Semaphore;

use crate::Store;
use crate::auth::ANONYMOUS_USER;
use crate::health;
use crate::metrics::{Metrics, RequestLabels};

/// The router of every resource of the generated crate (and discovery, OpenAPI), served
/// by `store`. Every error is a `Status`, as the API server answers (the generated router
/// sees to requests no route serves).
pub fn router(store: Store, config: Config) -> Router {
    generated::server::router(Dynamic(store), config)
}

/// The HTTP configuration: a body size limit, and who may call (`None`: everyone, as an
/// anonymous administrator).
pub fn config(max_body_bytes: usize, authenticator: Option<Arc<dyn Authenticator>>) -> Config {
    Config { max_body_bytes, authenticator: authenticator.unwrap_or_else(|| Arc::new(Anonymous)) }
}

/// What [`operable`] adds around the API.
pub struct Operations {
    /// How long a request other than a watch may take before it is answered 504.
    pub request_timeout: Duration,
    /// How many requests other than watches may be served at once; more are answered
    /// 429 with `Retry-After: 1`. 0: no limit.
    pub max_requests_inflight: usize,
    pub metrics: Arc<Metrics>,
    /// Who the request logs name (the server's authenticator, or anonymous).
    pub authenticator: Option<Arc<dyn Authenticator>>,
}

struct Operated {
    operations: Operations,
    permits: Option<Arc<Semaphore>>,
}

/// `api` with `/healthz`, `/livez`, `/readyz` ([`health`]) and `/metrics` beside it, and
/// every request counted, timed, logged (`tracing`, target `apiserver::request`: method,
/// path, HTTP version, status, latency, user, user agent), limited in time and in number (watches are
/// long-running: neither).
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
    let operated = Arc::new(Operated { operations, permits });
    health::routes(store)
        .merge(metrics_route)
        .method_not_allowed_fallback(|| async {
            let message = "the server does not allow this method on the requested resource";
            status_response(&Status::failure(405, reason::METHOD_NOT_ALLOWED, message))
        })
        .fallback_service(api)
        .layer(from_fn_with_state(operated, observe))
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
    let labels = RequestLabels::of(request.method().as_str(), request.uri().path(), request.uri().query());
    let method = request.method().clone();
    let version = request.version();
    let path = request.uri().path().to_owned();
    let user_agent = request.headers().get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let user = operations
        .authenticator
        .as_ref()
        .and_then(|authenticator| authenticator.authenticate(request.headers()).ok().flatten())
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
        target: "apiserver::request",
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
fn status_response(status: &Status) -> Response {
    let code = StatusCode::from_u16(status.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(status).unwrap_or_default();
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Serves `store` on `listener` (a `tokio::net::TcpListener`, or a
/// [`crate::tls::TlsListener`]) until `shutdown` completes; then stops accepting
/// connections, ends every watch cleanly ([`Store::shutdown`]) and returns once the
/// requests in flight have been answered.
pub async fn serve<L>(
    listener: L,
    store: Store,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: kube_apigen::axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    serve_router(listener, router(store.clone(), config), store, shutdown).await
}

/// [`serve`] with any router over `store`: the router of another generated crate, such
/// as `fixture_api::server::router(Dynamic(store.clone()), config)`.
pub async fn serve_router<L>(
    listener: L,
    app: Router,
    store: Store,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: kube_apigen::axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    kube_apigen::axum::serve(listener, app)
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
