//! Protobuf next to JSON: decode and encode of the HPA and CSR fixtures, and GETs answered
//! by the generated router with `Accept: application/vnd.kubernetes.protobuf` against
//! `Accept: application/json`; and the generated models' JSON next to k8s-openapi's.
//!
//! - k8s-openapi: `serde_json::from_slice` / `to_vec` of the same fixture with k8s-openapi's
//!   type of the kind against the generated model's: the same JSON in, the same work out.
//! - Codecs: `serde_json::from_slice` / `to_vec` of the model against the protobuf body
//!   (the `k8s\0` envelope and the message) read with `decode_envelope` and the model's
//!   codec, and written with its codec and `encode_envelope`: what a server does per body.
//! - GET: `generated::server::router` over a `HorizontalPodAutoscalerApi` whose `read`
//!   answers a clone of the HPA fixture, driven in memory (`tower::ServiceExt::oneshot`, the
//!   body read in full): requests per second of each `Accept`.
//!
//! Method: batches of calls timed with `Instant`, the workloads of one comparison
//! interleaved round by round (41 rounds after a warm-up), median ns per call and the
//! median of the per-round ratios; heap allocations per call counted by the global
//! allocator below. `cargo bench -p api-tests --bench protobuf` measures; a further argument
//! runs only the comparisons whose label contains it (`-- k8s-openapi`). Without `--bench`
//! (`cargo test --benches`) one short round of each runs as a smoke test.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use common::{OneHpa, PATH};
use generated::api::autoscaling::v2::HorizontalPodAutoscaler;
use generated::api::certificates::v1::CertificateSigningRequest;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::http::{Request, StatusCode, header};
use kube_apigen::http::Config;
use kube_apigen::protobuf::{self, Payload};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tower::ServiceExt;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One workload: its name and one call of it.
type Workload<'a> = (&'a str, Box<dyn FnMut() + 'a>);

/// Times `batch` calls; nanoseconds and allocations per call.
fn time(call: &mut dyn FnMut(), batch: u32) -> (f64, f64) {
    let allocations = ALLOCATIONS.load(Relaxed);
    let started = Instant::now();
    for _ in 0..batch {
        call();
    }
    let ns = started.elapsed().as_nanos() as f64 / f64::from(batch);
    (ns, (ALLOCATIONS.load(Relaxed) - allocations) as f64 / f64::from(batch))
}

/// How long and which comparisons to run.
struct Plan {
    rounds: usize,
    batch: u32,
    /// Only comparisons whose label contains this run.
    only: Option<String>,
}

/// Rounds of every workload in turn; prints each one's median ns per call, allocations,
/// and its speed relative to the first (ratio of medians, median of per-round ratios).
fn compare(label: &str, workloads: &mut [Workload<'_>], plan: &Plan) {
    if plan.only.as_ref().is_some_and(|only| !label.contains(only.as_str())) {
        return;
    }
    let Plan { rounds, batch, .. } = *plan;
    for (_, call) in workloads.iter_mut() {
        time(call.as_mut(), batch / 4 + 1);
    }
    let mut times = vec![Vec::new(); workloads.len()];
    let mut allocations = vec![0.0; workloads.len()];
    for round in 0..rounds {
        for offset in 0..workloads.len() {
            let which = (round + offset) % workloads.len();
            let (ns, allocated) = time(workloads[which].1.as_mut(), batch);
            times[which].push(ns);
            allocations[which] = allocated;
        }
    }
    println!("{label}:");
    let baseline = median(&times[0]);
    for (which, (name, _)) in workloads.iter().enumerate() {
        let ns = median(&times[which]);
        let ratios: Vec<f64> = times[0].iter().zip(&times[which]).map(|(first, this)| first / this).collect();
        println!(
            "  {name:<34} {ns:>9.0} ns  {:>6.0} allocations  speed vs first {:.2} (median of per-round ratios {:.2})",
            allocations[which],
            baseline / ns,
            median(&ratios)
        );
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)).expect("a fixture")
}

/// The protobuf body of `value`: its message in its envelope.
fn protobuf_body<T: Payload>(value: &T) -> Vec<u8> {
    let codec = T::PROTOBUF.expect("a message");
    let (api_version, kind) = codec.type_meta.expect("one kind");
    protobuf::encode_envelope(api_version, kind, &(codec.encode)(value))
}

/// Decode and encode of one fixture: the generated model's JSON against k8s-openapi's
/// `Theirs`, then against the model's protobuf.
fn codecs<T, Theirs>(name: &str, plan: &Plan)
where
    T: Payload + DeserializeOwned + Serialize,
    Theirs: DeserializeOwned + Serialize,
{
    let json = fixture(name);
    let value: T = serde_json::from_slice(&json).expect("the fixture decodes");
    let theirs: Theirs = serde_json::from_slice(&json).expect("the fixture decodes with k8s-openapi");
    let body = protobuf_body(&value);
    println!("{name}: {} bytes of JSON, {} bytes of protobuf", json.len(), body.len());
    let codec = T::PROTOBUF.expect("a message");
    let decode_json = || {
        std::hint::black_box(serde_json::from_slice::<T>(&json).expect("JSON decodes"));
    };
    let decode_theirs = || {
        std::hint::black_box(serde_json::from_slice::<Theirs>(&json).expect("JSON decodes"));
    };
    let decode_protobuf = || {
        let envelope = protobuf::decode_envelope(&body).expect("an envelope");
        std::hint::black_box((codec.decode)(&envelope).expect("protobuf decodes"));
    };
    compare(
        &format!("{name}: JSON decode, generated against k8s-openapi"),
        &mut [("k8s-openapi", Box::new(decode_theirs)), ("generated", Box::new(decode_json))],
        plan,
    );
    compare(
        &format!("{name}: decode"),
        &mut [("JSON", Box::new(decode_json)), ("protobuf", Box::new(decode_protobuf))],
        plan,
    );
    let encode_json = || {
        std::hint::black_box(serde_json::to_vec(&value).expect("JSON encodes"));
    };
    let encode_theirs = || {
        std::hint::black_box(serde_json::to_vec(&theirs).expect("JSON encodes"));
    };
    let encode_protobuf = || {
        std::hint::black_box(protobuf_body(&value));
    };
    compare(
        &format!("{name}: JSON encode, generated against k8s-openapi"),
        &mut [("k8s-openapi", Box::new(encode_theirs)), ("generated", Box::new(encode_json))],
        plan,
    );
    compare(
        &format!("{name}: encode"),
        &mut [("JSON", Box::new(encode_json)), ("protobuf", Box::new(encode_protobuf))],
        plan,
    );
}

/// GETs of the HPA through the generated router in memory, JSON against protobuf.
fn get(plan: &Plan) {
    let hpa: HorizontalPodAutoscaler = serde_json::from_slice(&fixture("hpa.json")).expect("an HPA");
    let router: Router = generated::server::router(OneHpa(Arc::new(hpa)), Config::default());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let request = |accept: &'static str| {
        let router = router.clone();
        let runtime = &runtime;
        move || {
            runtime.block_on(async {
                let request = Request::get(PATH).header(header::ACCEPT, accept).body(Body::empty()).expect("a request");
                let response = router.clone().oneshot(request).await.expect("infallible");
                assert_eq!(response.status(), StatusCode::OK);
                let body = http_body_util::BodyExt::collect(response.into_body()).await.expect("a body");
                std::hint::black_box(body.to_bytes());
            })
        }
    };
    let mut workloads: [Workload<'_>; 2] = [
        ("Accept: application/json", Box::new(request("application/json"))),
        ("Accept: application/vnd.kubernetes.protobuf", Box::new(request(protobuf::CONTENT_TYPE))),
    ];
    compare("GET of the HPA, in memory (ns per request)", &mut workloads, plan);
}

fn main() {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let only = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let (rounds, batch) = if measuring { (41, 2_000) } else { (1, 10) };
    let plan = Plan { rounds, batch, only };
    codecs::<HorizontalPodAutoscaler, k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler>("hpa.json", &plan);
    codecs::<CertificateSigningRequest, k8s_openapi::api::certificates::v1::CertificateSigningRequest>(
        "csr.json", &plan,
    );
    get(&Plan { batch: batch / 4, ..plan });
}
