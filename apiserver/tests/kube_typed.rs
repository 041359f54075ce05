//! kube-rs with generated types, no `DynamicObject`: the crate generated from `specs/`
//! with `apimachinery = "k8s-openapi"` (`tests/kube-api`) gives models whose metadata is
//! k8s-openapi's, so `Api<Probe>`, watchers and `Controller<Probe>` take them as they are.
//!
//! Each test runs against two servers in process: the reference server (the `generated`
//! crate's router on the registry) and the registry serving `kube-api`'s own router, so
//! the crate that types the client also serves it. Expected error texts are the API
//! server's own, word for word.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, ResourceExt};
use kube::runtime::watcher::{self, Event};
use kube_api::api::autoscaling::v2::HorizontalPodAutoscaler;
use kube_api::com::coreos::monitoring::v1::Probe;
use kube_apigen_registry::Server;
use serde_json::json;

/// The reference server, and the registry on `kube-api`'s router.
fn servers() -> [(&'static str, Server); 2] {
    let own = Server::builder(kube_api::server::api()).build().expect("kube-api's router builds");
    [("reference", apiserver::builder().build().expect("the reference server builds")), ("kube-api", own)]
}

fn probe(name: &str, interval: &str) -> Probe {
    let mut probe: Probe = serde_json::from_value(json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "Probe",
        "spec": {
            "interval": interval,
            "prober": {"url": "blackbox-exporter:9115"},
            "targets": {"staticConfig": {"static": ["https://example.com"]}}
        }
    }))
    .expect("a Probe");
    probe.metadata = Some(ObjectMeta { name: Some(name.to_owned()), ..ObjectMeta::default() });
    probe
}

fn api_error<T: std::fmt::Debug>(result: kube::Result<T>) -> (u16, String, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.reason, status.message),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn typed_probes_through_api() {
    for (server_name, server) in servers() {
        let probes: Api<Probe> = Api::namespaced(server.client(), "monitoring");
        let created = probes.create(&PostParams::default(), &probe("web", "30s")).await.expect("create");
        assert_eq!(created.namespace().as_deref(), Some("monitoring"), "{server_name}");
        assert!(created.uid().is_some() && created.creation_timestamp().is_some(), "{server_name}: {created:?}");
        let spec = created.spec.as_ref().expect("spec");
        assert_eq!(spec.prober.as_ref().and_then(|p| p.path.as_deref()), Some("/probe"), "defaulted by the CRD");
        assert_eq!(probes.get("web").await.expect("get"), created, "{server_name}");

        let merged = probes
            .patch("web", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"team": "web"}}})))
            .await
            .expect("merge patch");
        assert_eq!(merged.labels().get("team").map(String::as_str), Some("web"), "{server_name}");
        let applied = probes
            .patch(
                "web",
                &PatchParams::apply("probe-tests").force(),
                &Patch::Apply(json!({
                    "apiVersion": "monitoring.coreos.com/v1", "kind": "Probe",
                    "metadata": {"name": "web"}, "spec": {"interval": "1m"}
                })),
            )
            .await
            .expect("apply patch");
        assert_eq!(applied.spec.as_ref().and_then(|s| s.interval.as_deref()), Some("1m"), "{server_name}");
        assert!(applied.managed_fields().iter().any(|m| m.manager.as_deref() == Some("probe-tests")));

        let all: Api<Probe> = Api::all(server.client());
        let listed = all.list(&ListParams::default().labels("team=web")).await.expect("list");
        assert_eq!(listed.items.iter().map(ResourceExt::name_any).collect::<Vec<_>>(), ["web"], "{server_name}");

        let (code, reason, message) = api_error(probes.create(&PostParams::default(), &probe("bad", "often")).await);
        assert_eq!((code, reason.as_str()), (422, "Invalid"), "{server_name}");
        assert_eq!(
            message,
            r#"Probe.monitoring.coreos.com "bad" is invalid: spec.interval: Invalid value: "often": spec.interval in body should match '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'"#,
            "{server_name}"
        );

        probes.delete("web", &DeleteParams::default()).await.expect("delete");
        let (code, _, message) = api_error(probes.get("web").await);
        assert_eq!((code, message.as_str()), (404, r#"probes.monitoring.coreos.com "web" not found"#), "{server_name}");
    }
}

#[tokio::test]
async fn a_watcher_of_typed_probes() {
    for (server_name, server) in servers() {
        let probes: Api<Probe> = Api::namespaced(server.client(), "monitoring");
        let mut events = watcher::watcher(probes.clone(), watcher::Config::default()).boxed();
        let mut next = async || {
            tokio::time::timeout(Duration::from_secs(10), events.try_next())
                .await
                .expect("a watcher event within 10 s")
                .expect("no watcher error")
                .expect("the watcher goes on")
        };
        assert!(matches!(next().await, Event::Init), "{server_name}");
        assert!(matches!(next().await, Event::InitDone), "{server_name}");
        probes.create(&PostParams::default(), &probe("web", "30s")).await.expect("create");
        match next().await {
            Event::Apply(object) => assert_eq!(object.name_any(), "web", "{server_name}"),
            other => panic!("{server_name}: expected the created Probe, got {other:?}"),
        }
        probes.delete("web", &DeleteParams::default()).await.expect("delete");
        match next().await {
            Event::Delete(object) => assert_eq!(object.name_any(), "web", "{server_name}"),
            other => panic!("{server_name}: expected the deleted Probe, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn typed_hpa_status_and_scale() {
    for (server_name, server) in servers() {
        let hpas: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "apps");
        let hpa: HorizontalPodAutoscaler = serde_json::from_value(json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}
        }))
        .expect("an HPA");
        hpas.create(&PostParams::default(), &hpa).await.expect("create");
        let status = json!({"status": {"currentReplicas": 2, "desiredReplicas": 3}});
        let patched =
            hpas.patch_status("web", &PatchParams::default(), &Patch::Merge(status)).await.expect("patch /status");
        assert_eq!(patched.status.as_ref().map(|s| s.desired_replicas), Some(3), "{server_name}");

        let scale = hpas.get_scale("web").await;
        let (code, _, message) = api_error(scale);
        assert_eq!(code, 404, "{server_name}: HPAs have no scale subresource: {message}");
    }
}
