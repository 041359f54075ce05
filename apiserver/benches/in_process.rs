//! The reference server as an in-process test server (`cargo bench -p apiserver --bench
//! in_process`): what a test pays for a server of its own.
//!
//! - build: `apiserver::builder().build()` alone (every kind of the generated crate, in
//!   memory);
//! - start to first answer: build, `Server::client()`, then a kube-rs list answered in
//!   process (the first request pays for the router's first use, and the creation of the
//!   system namespaces);
//! - the same with three CustomResourceDefinitions installed first (the fixture crate's
//!   Gizmo and Knob, and a small Widget), the first answer a list of ConfigMaps;
//! - creates of the fixture crate's Gizmo, one kind checked two ways in one run: compiled
//!   (the fixture crate's router and typed checks) and at run time (its definition
//!   installed on the reference server, checked from its schema), alternating batches;
//! - 100 servers side by side: built, each sent a create and a list at once on a 2-thread
//!   runtime; the total time and the resident memory each one adds while all are alive.
//!
//! Medians, 90th percentiles and maxima over `BENCH_ROUNDS` rounds (default 200).

use std::time::{Duration, Instant};

use k8s_openapi::api::autoscaling::v2::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec,
};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, PostParams};
use kube_apigen_registry::Server;

/// The definitions a test installs: two of the fixture crate's and a small one.
const CRDS: &str = concat!(
    include_str!("../../tests/fixture-specs/gizmos.crd.yaml"),
    "\n---\n",
    r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer, minimum: 1}}}
"#
);

/// A valid Gizmo: its spec rules (a CEL rule among them) all hold.
fn gizmo(name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "crd.example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"mode": "Always", "replicas": 2, "maxReplicas": 5}
    })
}

fn server() -> Server {
    apiserver::builder().build().expect("the reference server builds")
}

fn hpa(name: &str) -> HorizontalPodAutoscaler {
    HorizontalPodAutoscaler {
        metadata: ObjectMeta { name: Some(name.to_owned()), ..ObjectMeta::default() },
        spec: HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                api_version: Some("apps/v1".to_owned()),
                kind: "Deployment".to_owned(),
                name: name.to_owned(),
            },
            max_replicas: 3,
            ..HorizontalPodAutoscalerSpec::default()
        },
        status: None,
    }
}

/// Resident memory of this process, from `/proc/self/statm` (Linux), in KiB.
fn resident_kib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4)
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what:<28} median {:>8.3} ms   p90 {:>8.3} ms   max {:>8.3} ms   ({} rounds)",
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
        samples.len()
    );
}

fn main() {
    let rounds: usize = std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let builds = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let built = server();
                let took = start.elapsed();
                drop(built);
                took
            })
            .collect();
        report("build", builds);

        let mut firsts = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let start = Instant::now();
            let server = server();
            let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());
            hpas.list(&ListParams::default()).await.expect("list");
            firsts.push(start.elapsed());
        }
        report("start to first answer", firsts);

        let mut with_crds = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let start = Instant::now();
            let server = server();
            server.store().install_crds(CRDS).await.expect("the definitions are accepted");
            let config_maps: Api<ConfigMap> = Api::default_namespaced(server.client());
            config_maps.list(&ListParams::default()).await.expect("list");
            with_crds.push(start.elapsed());
        }
        report("with 3 CRDs, first answer", with_crds);

        let compiled = Server::builder(fixture_api::server::api()).build().expect("the fixture server builds");
        let at_run_time = server();
        at_run_time.store().install_crds(CRDS).await.expect("the definitions are accepted");
        let resource =
            ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("crd.example.com", "v1", "Gizmo"), "gizmos");
        let (mut typed, mut structural) = (Vec::new(), Vec::new());
        for batch in 0..rounds.div_ceil(20) {
            for (server, samples) in [(&compiled, &mut typed), (&at_run_time, &mut structural)] {
                let gizmos: Api<DynamicObject> = Api::default_namespaced_with(server.client(), &resource);
                for i in 0..20 {
                    let gizmo: DynamicObject =
                        serde_json::from_value(gizmo(&format!("g-{batch}-{i}"))).expect("a Gizmo");
                    let start = Instant::now();
                    gizmos.create(&PostParams::default(), &gizmo).await.expect("create");
                    samples.push(start.elapsed());
                }
            }
        }
        report("Gizmo create, compiled", typed);
        report("Gizmo create, at run time", structural);

        let before = resident_kib();
        let start = Instant::now();
        let servers: Vec<Server> = (0..100).map(|_| server()).collect();
        let uses = servers.iter().map(|server| async move {
            let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());
            hpas.create(&PostParams::default(), &hpa("web")).await.expect("create");
            hpas.list(&ListParams::default()).await.expect("list").items.len()
        });
        let listed = futures::future::join_all(uses).await;
        let took = start.elapsed();
        assert!(listed.iter().all(|&n| n == 1), "each server holds its own object");
        let per_server = match (before, resident_kib()) {
            (Some(before), Some(after)) => format!("{} KiB resident per server", after.saturating_sub(before) / 100),
            _ => "resident memory unknown (no /proc)".to_owned(),
        };
        println!("100 servers side by side      total {:>8.1} ms   {per_server}", took.as_secs_f64() * 1e3);
        drop(servers);
    });
}
