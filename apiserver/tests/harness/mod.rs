//! Shared helpers of the apiserver tests: the router in process on each storage backend,
//! requests with JSON answers, watch streams read line by line, and sample objects.

// Each test crate uses a part of the harness.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod certificates;
pub mod etcd;
pub mod process;

use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::http::{Method, Request, StatusCode, header};
use kube_apigen::dynamic::ServedApi;
use kube_apigen::http::Authenticator;
use kube_apigen_registry::{Server, ServerBuilder, Store, StoreConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

pub const HPAS: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
pub const HPAS_ALL: &str = "/apis/autoscaling/v2/horizontalpodautoscalers";
pub const CSRS: &str = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

/// The storage backends a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Memory,
    /// The in-memory backend on a data directory (`--data-dir`).
    Embedded,
    /// A single etcd server of the test's own (`--etcd-servers`).
    Etcd,
}

/// What a store on a backend needs alive: a data directory, an etcd.
pub enum Held {
    Directory(tempfile::TempDir),
    Etcd(etcd::Etcd),
}

tokio::task_local! {
    static BACKEND: Backend;
}

impl Backend {
    /// Runs `test` with every [`Api`] it makes on this backend.
    pub async fn run<F: Future>(self, test: F) -> F::Output {
        BACKEND.scope(self, test).await
    }

    /// The backend of the running test ([`Backend::Memory`] outside [`Backend::run`]).
    pub fn current() -> Backend {
        BACKEND.try_with(|backend| *backend).unwrap_or(Backend::Memory)
    }

    /// `builder` storing on this backend, and what must live as long as its server.
    fn storage(self, builder: ServerBuilder) -> (ServerBuilder, Option<Held>) {
        match self {
            Backend::Memory => (builder, None),
            Backend::Embedded => {
                let directory = tempfile::tempdir().expect("a temporary data directory");
                (builder.data_dir(directory.path()), Some(Held::Directory(directory)))
            }
            Backend::Etcd => {
                let etcd = etcd::Etcd::start(1, "etcd backend").expect("an etcd binary (checked by the test)");
                (builder.etcd(&etcd.urls(), Duration::ZERO), Some(Held::Etcd(etcd)))
            }
        }
    }
}

/// Defines each of the `async fn name() { ... }` tests it is given once, and runs it as
/// a test on every storage backend: `memory::name`, `embedded::name` and `etcd::name`
/// (which prints `SKIPPED` and passes without an etcd binary). Tests after
/// `in_memory_only:` run on the first two only: they use what only the in-memory backend
/// has (its history size, its broadcast buffer) or name the revisions of a store that
/// starts at 0 (an etcd starts at 1).
macro_rules! backend_tests {
    (
        $($(#[$attribute:meta])* async fn $name:ident() $body:block)*
        $(in_memory_only: $($(#[$memory_attribute:meta])* async fn $memory_name:ident() $memory_body:block)*)?
    ) => {
        $($(#[$attribute])* async fn $name() $body)*
        $($($(#[$memory_attribute])* async fn $memory_name() $memory_body)*)?

        $crate::harness::backend_module!(memory, Memory, $($name)* $($($memory_name)*)?);
        $crate::harness::backend_module!(embedded, Embedded, $($name)* $($($memory_name)*)?);
        $crate::harness::backend_module!(etcd, Etcd, $($name)*);
    };
}
pub(crate) use backend_tests;

/// The module `$module` of tests running the tests `$name` on `Backend::$backend`.
macro_rules! backend_module {
    ($module:ident, $backend:ident, $($name:ident)*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let backend = $crate::harness::Backend::$backend;
                    if backend == $crate::harness::Backend::Etcd && $crate::harness::etcd::binary().is_none() {
                        eprintln!("SKIPPED: {}: no etcd binary (install Debian's etcd-server, or set ETCD)", stringify!($name));
                        return;
                    }
                    backend.run(super::$name()).await
                }
            )*
        }
    };
}
pub(crate) use backend_module;

/// A store and the router serving it, in process, on the running test's backend.
pub struct Api {
    pub store: Store,
    pub router: Router,
    /// The data directory or the etcd of the store.
    _held: Option<Held>,
}

impl Api {
    pub fn new() -> Self {
        Self::with(|_| {}, None)
    }

    /// A server whose store configuration `configure` adjusts, with an authenticator.
    pub fn with(configure: impl FnOnce(&mut StoreConfig), authenticator: Option<Arc<dyn Authenticator>>) -> Self {
        let builder = apiserver::builder();
        let builder = match authenticator {
            Some(authenticator) => builder.authenticator(authenticator),
            None => builder,
        };
        Self::serve(builder, configure)
    }

    /// A server of `api` as the tests use it: quick bookmarks and waits, no limit on
    /// requests at once.
    fn serve(builder: ServerBuilder, configure: impl FnOnce(&mut StoreConfig)) -> Self {
        let builder = builder.max_requests_inflight(0).configure_store(|config| {
            // The tests of everything but namespaces name namespaces they never create.
            config.namespace_lifecycle = false;
            config.bookmark_interval = Duration::from_millis(200);
            config.too_large_wait = Duration::from_millis(200);
            configure(config);
        });
        let (builder, held) = Backend::current().storage(builder);
        let server = builder.build().expect("the test server builds");
        Api { store: server.store().clone(), router: server.router(), _held: held }
    }

    /// A server for the fixture crate's resources (`tests/fixture-specs`: the Gizmo and
    /// Knob custom resources, the Autoscaler and Widget), with their typed checks.
    pub fn fixture() -> Self {
        Self::fixture_with(|_| {})
    }

    /// [`Api::fixture`] with a store configuration `configure` adjusts.
    pub fn fixture_with(configure: impl FnOnce(&mut StoreConfig)) -> Self {
        let api: ServedApi<Store> = fixture_api::server::api();
        Self::serve(Server::builder(api), configure)
    }

    /// Sends a request; answers the status code and the body as JSON (`Null` if empty).
    pub async fn send(&self, request: Request<Body>) -> (StatusCode, Value) {
        let response = self.router.clone().oneshot(request).await.expect("the router answers");
        let status = response.status();
        let bytes = response.into_body().collect().await.expect("a body").to_bytes();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
        };
        (status, body)
    }

    pub async fn call(
        &self,
        method: Method,
        uri: &str,
        content_type: &str,
        body: Option<&Value>,
    ) -> (StatusCode, Value) {
        let body = body.map(|b| Body::from(b.to_string())).unwrap_or_else(Body::empty);
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::USER_AGENT, "apiserver-tests/v0 (test)")
            .body(body)
            .unwrap();
        self.send(request).await
    }

    pub async fn get(&self, uri: &str) -> (StatusCode, Value) {
        self.call(Method::GET, uri, "application/json", None).await
    }

    pub async fn post(&self, uri: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::POST, uri, "application/json", Some(body)).await
    }

    pub async fn put(&self, uri: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::PUT, uri, "application/json", Some(body)).await
    }

    pub async fn merge_patch(&self, uri: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::PATCH, uri, "application/merge-patch+json", Some(body)).await
    }

    pub async fn json_patch(&self, uri: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::PATCH, uri, "application/json-patch+json", Some(body)).await
    }

    pub async fn delete(&self, uri: &str, body: Option<&Value>) -> (StatusCode, Value) {
        self.call(Method::DELETE, uri, "application/json", body).await
    }

    /// Creates `object` and answers it, asserting 201.
    pub async fn create(&self, collection: &str, object: &Value) -> Value {
        let (status, body) = self.post(collection, object).await;
        assert_eq!(status, StatusCode::CREATED, "create {collection}: {body}");
        body
    }

    /// Opens a watch.
    pub async fn watch(&self, uri: &str) -> Watch {
        let request = Request::builder().uri(uri).body(Body::empty()).unwrap();
        let response = self.router.clone().oneshot(request).await.expect("the router answers");
        assert_eq!(response.status(), StatusCode::OK, "watch {uri}");
        assert_eq!(response.headers().get(header::CONTENT_TYPE).unwrap(), "application/json;stream=watch");
        Watch { body: response.into_body(), buffer: Vec::new(), ended: false }
    }
}

/// A watch response, read one event at a time.
pub struct Watch {
    body: Body,
    buffer: Vec<u8>,
    ended: bool,
}

impl Watch {
    /// The next event, or `None` when the stream ended; panics after `wait` without one.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        loop {
            if let Some(position) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=position).collect();
                return Some(serde_json::from_slice(&line).expect("an event line"));
            }
            if self.ended {
                assert!(self.buffer.is_empty(), "a partial line at the end");
                return None;
            }
            let frame = tokio::time::timeout(wait, self.body.frame())
                .await
                .unwrap_or_else(|_| panic!("no watch event within {wait:?}"));
            match frame {
                None => self.ended = true,
                Some(frame) => {
                    if let Ok(data) = frame.expect("a frame").into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// The next event (within 5 seconds), which must be there.
    pub async fn next(&mut self) -> Value {
        self.next_within(Duration::from_secs(5)).await.expect("an event, not the end")
    }

    /// The next event that is not a BOOKMARK.
    pub async fn next_change(&mut self) -> Value {
        loop {
            let event = self.next().await;
            if event["type"] != "BOOKMARK" {
                return event;
            }
        }
    }

    /// Asserts that no event comes within `wait` (bookmarks aside).
    pub async fn expect_quiet(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return;
            }
            if let Ok(event) = tokio::time::timeout(left, self.next_within(Duration::from_secs(3600))).await {
                let event = event.expect("the stream goes on");
                assert_eq!(event["type"], "BOOKMARK", "unexpected event {event}");
            }
        }
    }

    /// Asserts that the stream ends (within 5 seconds), bookmarks aside.
    pub async fn expect_end(&mut self) {
        loop {
            match self.next_within(Duration::from_secs(5)).await {
                None => return,
                Some(event) if event["type"] == "BOOKMARK" => continue,
                Some(event) => panic!("expected the end of the stream, got {event}"),
            }
        }
    }
}

/// An HPA named `name` with `labels`.
pub fn hpa(name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 3
        }
    })
}

/// A CSR named `name` for `signer`.
pub fn csr(name: &str, signer: &str) -> Value {
    json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": "cmVxdWVzdA==", "signerName": signer, "usages": ["client auth"]}
    })
}

/// `metadata.resourceVersion` as a number.
pub fn rv(object: &Value) -> u64 {
    object["metadata"]["resourceVersion"].as_str().expect("a resourceVersion").parse().unwrap()
}

/// The names of a list's items.
pub fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Percent-encodes a query value.
pub fn q(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The kubectl to run: `$KUBECTL`, else `kubectl` from the PATH; `None` (after a loud
/// message) when there is none.
pub fn find_kubectl() -> Option<std::path::PathBuf> {
    let bin = std::env::var_os("KUBECTL").map(std::path::PathBuf::from).unwrap_or_else(|| "kubectl".into());
    match std::process::Command::new(&bin).args(["version", "--client"]).output() {
        Ok(out) if out.status.success() => Some(bin),
        Ok(out) => panic!(
            "{} version --client failed ({}): {}",
            bin.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "\n==================================================\n\
                 SKIPPED: kubectl not found ({}: {error})\n\
                 ==================================================\n",
                bin.display()
            );
            None
        }
        Err(error) => panic!("cannot run {}: {error}", bin.display()),
    }
}

/// Polls `read` every 20 ms until it gives a value, for at most 10 s.
pub async fn eventually<T, F: Future<Output = Option<T>>>(what: &str, mut read: impl FnMut() -> F) -> T {
    let poll = async {
        loop {
            if let Some(value) = read().await {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), poll).await.unwrap_or_else(|_| panic!("{what} within 10 s"))
}
