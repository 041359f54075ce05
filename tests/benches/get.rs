//! Requests per second of a GET answered by the generated router, next to a hand-written
//! axum handler serving the same object on the same path.
//!
//! - `generated`: `generated::server::router` over a `HorizontalPodAutoscalerApi` whose
//!   `read` returns a clone of a pre-built HPA (`tests/fixtures/hpa.json`, 9 KiB of JSON).
//!   Everything the router does for a real request runs: authentication (the default
//!   anonymous authenticator), `Accept` negotiation, body collection, query decoding and
//!   option checks, the `Context`, JSON encoding, `Warning` headers.
//! - `hand-written`: one axum route on the same path with `Path<(String, String)>` and
//!   `State`, cloning the same object and answering it with `serde_json::to_vec`: what a
//!   developer would write without the generator.
//!
//! Method, in two parts, each alternating generated / hand-written round by round so that
//! both see the same machine load, after a warm-up of each; the report gives medians and the
//! median of the per-round ratios (the machines here are shared and noisy: the per-round
//! ratio compares two measurements taken seconds apart).
//! 1. In memory: batches of requests through each router with `tower::ServiceExt::oneshot`,
//!    body read in full, on one current-thread runtime: nanoseconds and heap allocations
//!    (counted by the global allocator below) per request, the cost of the handler layer
//!    without sockets. A third router, the hand-written one wrapped in
//!    `kube_apigen::http::status_errors` (which `generated::server::router` applies to every
//!    route), sets the cost of that middleware apart; and the same comparison with a
//!    minimal HPA (name and namespace only) shows the fixed cost per request, which the
//!    clone and encoding of a real object otherwise hide. Last, the sizes of every heap
//!    allocation of one request through each router, in order, to tell them apart.
//! 2. Loopback TCP: both servers listen on free ports of 127.0.0.1, each on a
//!    current-thread tokio runtime of its own thread; the load generator runs on a third
//!    current-thread runtime: `CONNECTIONS` keep-alive HTTP/1.1 connections, each a loop of
//!    one request written and one response read in full (status line, `Content-Length`,
//!    body) on a raw `TcpStream`, for a fixed duration per round; requests/s. Before
//!    measuring, both servers' answers are checked to be the same bytes.
//!
//! `cargo bench -p api-tests --bench get` measures (environment: `GET_BENCH_MILLIS`, the
//! TCP round length, default 500; `GET_BENCH_ROUNDS`, default 41; `GET_BENCH_CONNECTIONS`,
//! default 32). Without `--bench` (as under `cargo test --benches`) it runs one short round
//! of each as a smoke test. `GET_BENCH_PROFILE=generated` (or `hand-written`, either with
//! `,minimal` for a minimal HPA) only sends requests in memory through that router for 10
//! seconds, for `perf record`.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use common::{OneHpa, PATH};
use generated::api::autoscaling::v2::HorizontalPodAutoscaler;
use generated::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::extract::{Path, State};
use kube_apigen::axum::http::{HeaderValue, Request, StatusCode, header};
use kube_apigen::axum::response::{IntoResponse, Response};
use kube_apigen::http::Config;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// The system allocator, counting allocations (and reallocations), and recording the sizes
/// of the first [`SIZES`] of them while [`TRACING`] is set.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static TRACING: AtomicBool = AtomicBool::new(false);
const SIZES: usize = 256;
static TRACED: AtomicUsize = AtomicUsize::new(0);
static TRACED_SIZES: [AtomicUsize; SIZES] = [const { AtomicUsize::new(0) }; SIZES];

fn record(size: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    if TRACING.load(Relaxed) {
        let index = TRACED.fetch_add(1, Relaxed);
        if let Some(slot) = TRACED_SIZES.get(index) {
            slot.store(size, Relaxed);
        }
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ROUTE: &str = "/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers/{name}";

/// The hand-written handler: the same clone, encoded with `serde_json`.
async fn hand_written(
    State(hpa): State<Arc<HorizontalPodAutoscaler>>,
    Path((_namespace, _name)): Path<(String, String)>,
) -> Response {
    let hpa = HorizontalPodAutoscaler::clone(&hpa);
    match serde_json::to_vec(&hpa) {
        Ok(body) => ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn hpa() -> HorizontalPodAutoscaler {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hpa.json");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/hpa.json");
    serde_json::from_str(&text).expect("the fixture is an HPA")
}

/// `object` with nothing but its name and namespace.
fn minimal(object: &HorizontalPodAutoscaler) -> HorizontalPodAutoscaler {
    let metadata = object.metadata.clone().map(|meta| ObjectMeta {
        name: meta.name,
        namespace: meta.namespace,
        ..ObjectMeta::default()
    });
    HorizontalPodAutoscaler { metadata, ..HorizontalPodAutoscaler::default() }
}

/// Serves `router` on a free loopback port, on a thread and runtime of its own.
fn serve(name: &str, router: Router) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
                sender.send(listener.local_addr().expect("an address")).expect("the bench waits");
                kube_apigen::axum::serve(listener, router).await.expect("the server runs");
            });
        })
        .expect("a server thread");
    receiver.recv().expect("the server starts")
}

/// One keep-alive connection's client.
struct Client {
    reader: BufReader<TcpStream>,
    request: Vec<u8>,
    line: String,
    body: Vec<u8>,
}

impl Client {
    async fn connect(address: SocketAddr) -> Self {
        let stream = TcpStream::connect(address).await.expect("a connection");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let request =
            format!("GET {PATH} HTTP/1.1\r\nHost: {address}\r\nAccept: application/json\r\nUser-Agent: bench\r\n\r\n");
        Client { reader: BufReader::new(stream), request: request.into_bytes(), line: String::new(), body: Vec::new() }
    }

    /// Sends the request and reads the whole response; returns its body.
    async fn get(&mut self) -> &[u8] {
        self.reader.get_mut().write_all(&self.request).await.expect("the request is sent");
        self.line.clear();
        self.reader.read_line(&mut self.line).await.expect("a status line");
        assert!(self.line.starts_with("HTTP/1.1 200 "), "unexpected status line {:?}", self.line);
        let mut length = None;
        loop {
            self.line.clear();
            self.reader.read_line(&mut self.line).await.expect("a header line");
            let line = self.line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = Some(value.trim().parse::<usize>().expect("a length"));
            }
        }
        let length = length.expect("a Content-Length");
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body).await.expect("the body");
        &self.body
    }
}

/// Drives `address` with `connections` connections for `duration`; returns requests/s.
async fn round(address: SocketAddr, connections: usize, duration: Duration) -> f64 {
    let mut clients = Vec::with_capacity(connections);
    for _ in 0..connections {
        clients.push(Client::connect(address).await);
    }
    let started = Instant::now();
    let deadline = started + duration;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            tokio::spawn(async move {
                let mut done = 0u64;
                while Instant::now() < deadline {
                    client.get().await;
                    done += 1;
                }
                done
            })
        })
        .collect();
    let mut total = 0;
    for task in tasks {
        total += task.await.expect("a client task");
    }
    total as f64 / started.elapsed().as_secs_f64()
}

/// Answers `iterations` GETs through `router` in memory (`oneshot`, body read in full);
/// returns nanoseconds and allocations per request.
async fn in_memory(router: &Router, iterations: u32) -> (f64, f64) {
    let allocations = ALLOCATIONS.load(Relaxed);
    let started = Instant::now();
    for _ in 0..iterations {
        let request =
            Request::get(PATH).header(header::ACCEPT, "application/json").body(Body::empty()).expect("a request");
        let response = router.clone().oneshot(request).await.expect("infallible");
        assert_eq!(response.status(), StatusCode::OK);
        let body = http_body_util::BodyExt::collect(response.into_body()).await.expect("a body");
        std::hint::black_box(body.to_bytes());
    }
    let elapsed = started.elapsed().as_nanos() as f64;
    let allocated = (ALLOCATIONS.load(Relaxed) - allocations) as f64;
    (elapsed / f64::from(iterations), allocated / f64::from(iterations))
}

/// Rounds of [`in_memory`] over `routers`, in a rotating order; prints for each the median
/// ns per request, its allocations per request, and its throughput relative to the
/// hand-written handler (`routers[0]`): the ratio of the medians and the median of the
/// per-round ratios.
async fn compare_in_memory(label: &str, routers: &[(&str, &Router)], rounds: usize, batch: u32) {
    for (_, router) in routers {
        in_memory(router, batch / 4).await;
    }
    let mut times = vec![Vec::new(); routers.len()];
    let mut allocations = vec![0.0; routers.len()];
    for index in 0..rounds {
        for offset in 0..routers.len() {
            let which = (index + offset) % routers.len();
            let (ns, allocated) = in_memory(routers[which].1, batch).await;
            times[which].push(ns);
            allocations[which] = allocated;
        }
    }
    println!("  {label}:");
    let baseline = median(&times[0]);
    for (which, (name, _)) in routers.iter().enumerate() {
        let ns = median(&times[which]);
        let ratios: Vec<f64> = times[0].iter().zip(&times[which]).map(|(h, x)| h / x).collect();
        println!(
            "    {name:<44} {ns:>7.0} ns/req  {:>4.0} allocations  +{:>5.0} ns  throughput vs hand-written {:.3} (median of per-round ratios {:.3})",
            allocations[which],
            ns - baseline,
            baseline / ns,
            median(&ratios),
        );
    }
}

/// The sizes of the heap allocations of one in-memory request through `router`, in order.
async fn allocation_sizes(router: &Router) -> Vec<usize> {
    in_memory(router, 10).await;
    TRACED.store(0, Relaxed);
    TRACING.store(true, Relaxed);
    in_memory(router, 1).await;
    TRACING.store(false, Relaxed);
    let traced = TRACED.load(Relaxed).min(SIZES);
    TRACED_SIZES[..traced].iter().map(|size| size.load(Relaxed)).collect()
}

/// `GET_BENCH_PROFILE=generated|hand-written[,minimal]`: only requests in memory through
/// one router, for 10 seconds, for a profiler (`perf record`) to look at.
fn profile(which: &str, object: &Arc<HorizontalPodAutoscaler>) {
    let object = if which.ends_with(",minimal") { Arc::new(minimal(object)) } else { Arc::clone(object) };
    let router = if which.starts_with("generated") {
        generated::server::router(OneHpa(object), Config::default())
    } else {
        Router::new().route(ROUTE, kube_apigen::axum::routing::get(hand_written)).with_state(object)
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let started = Instant::now();
        let mut requests = 0u64;
        while started.elapsed() < Duration::from_secs(10) {
            in_memory(&router, 1000).await;
            requests += 1000;
        }
        println!("{which}: {:.0} ns/req", started.elapsed().as_nanos() as f64 / requests as f64);
    });
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let (duration, rounds, connections, batch) = if measuring {
        (
            Duration::from_millis(setting("GET_BENCH_MILLIS", 500)),
            setting("GET_BENCH_ROUNDS", 41) as usize,
            setting("GET_BENCH_CONNECTIONS", 32) as usize,
            2000,
        )
    } else {
        (Duration::from_millis(100), 1, 4, 20)
    };

    let object = Arc::new(hpa());
    if let Ok(which) = std::env::var("GET_BENCH_PROFILE") {
        profile(&which, &object);
        return;
    }
    let generated_router = generated::server::router(OneHpa(Arc::clone(&object)), Config::default());
    let hand_router =
        Router::new().route(ROUTE, kube_apigen::axum::routing::get(hand_written)).with_state(Arc::clone(&object));
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");

    // 1. In memory: the cost of one request through each router, without sockets; also
    //    with a minimal HPA, where the fixed cost of the handler layer is not hidden by the
    //    cost of cloning and encoding the object.
    client.block_on(async {
        let expected = serde_json::to_vec(&*object).expect("the HPA encodes");
        println!("GET {PATH} ({} bytes of JSON)", expected.len());
        println!("in memory (tower oneshot), {rounds} rounds of {batch} requests each:");
        let layered = |router: &Router| kube_apigen::http::status_errors(router.clone());
        let hand_with_errors = layered(&hand_router);
        let routers = [
            ("hand-written", &hand_router),
            ("hand-written + kube_apigen::http::status_errors", &hand_with_errors),
            ("generated", &generated_router),
        ];
        compare_in_memory("fixture HPA", &routers, rounds, batch).await;
        let small = Arc::new(minimal(&object));
        let small_generated = generated::server::router(OneHpa(Arc::clone(&small)), Config::default());
        let small_hand =
            Router::new().route(ROUTE, kube_apigen::axum::routing::get(hand_written)).with_state(Arc::clone(&small));
        let small_hand_with_errors = layered(&small_hand);
        let bytes = serde_json::to_vec(&*small).expect("the HPA encodes").len();
        let routers = [
            ("hand-written", &small_hand),
            ("hand-written + kube_apigen::http::status_errors", &small_hand_with_errors),
            ("generated", &small_generated),
        ];
        compare_in_memory(&format!("minimal HPA, {bytes} bytes of JSON"), &routers, rounds, batch).await;
        println!("  allocation sizes of one request (minimal HPA), in bytes, in order:");
        for (name, router) in routers {
            println!("    {name}: {:?}", allocation_sizes(router).await);
        }
    });

    // 2. Over loopback TCP.
    let generated = serve("generated", generated_router);
    let hand = serve("hand-written", hand_router);
    client.block_on(async {
        // Both answer the same bytes.
        let expected = serde_json::to_vec(&*object).expect("the HPA encodes");
        for address in [generated, hand] {
            let mut probe = Client::connect(address).await;
            assert_eq!(probe.get().await, expected.as_slice(), "the answer of {address}");
        }
        println!("loopback TCP, {connections} keep-alive connections, {rounds} rounds of {duration:?} per server:");

        // Warm-up.
        round(generated, connections, duration.min(Duration::from_secs(1))).await;
        round(hand, connections, duration.min(Duration::from_secs(1))).await;

        let (mut ours, mut theirs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for index in 0..rounds {
            // Alternate which goes first, so that neither always follows the other.
            let (first, second) = if index % 2 == 0 { (generated, hand) } else { (hand, generated) };
            let a = round(first, connections, duration).await;
            let b = round(second, connections, duration).await;
            let (g, h) = if index % 2 == 0 { (a, b) } else { (b, a) };
            ours.push(g);
            theirs.push(h);
            ratios.push(g / h);
        }
        let shown: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        println!("  per-round ratios generated/hand-written: {}", shown.join(" "));
        let (g, h) = (median(&ours), median(&theirs));
        println!(
            "  median:   generated {g:>7.0} req/s   hand-written {h:>7.0} req/s   ratio {:.3} (median of per-round ratios {:.3})",
            g / h,
            median(&ratios)
        );
    });
}
