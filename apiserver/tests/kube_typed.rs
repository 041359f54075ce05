//! kube-rs with generated types, no `DynamicObject`: the crate generated from `specs/`
//! with `apimachinery = "k8s-openapi"` (`tests/kube-api`) gives models whose metadata is
//! k8s-openapi's, so `Api<Probe>`, watchers and `Controller<Probe>` take them as they are.
//!
//! Each test runs against two servers in process: the reference server (the `generated`
//! crate's router on the registry) and the registry serving `kube-api`'s own router, so
//! the crate that types the client also serves it. Expected error texts are the API
//! server's own, word for word.

mod harness;

use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, ResourceExt};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::watcher::{self, Event};
use kube_api::api::autoscaling::v2::HorizontalPodAutoscaler;
use kube_api::com::coreos::monitoring::v1::Probe;
use kube_apigen_registry::Server;
use serde_json::json;
use tokio::sync::mpsc;

use harness::eventually;

/// The reference server, and the registry on `kube-api`'s router, each without the
/// namespace lifecycle (the tests use namespaces they do not create).
fn servers() -> [(&'static str, Server); 2] {
    let any_namespace = |config: &mut kube_apigen_registry::StoreConfig| config.namespace_lifecycle = false;
    let own = Server::builder(kube_api::server::api()).configure_store(any_namespace).build();
    let reference = apiserver::builder().configure_store(any_namespace).build();
    [
        ("reference", reference.expect("the reference server builds")),
        ("kube-api", own.expect("kube-api's router builds")),
    ]
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

/// The finalizer the example controller puts on every Probe it reconciles.
const CLEANUP: &str = "example.com/cleanup";

/// What the example controller needs: a client, and where it reports the Probes whose
/// cleanup it ran.
struct Context {
    client: kube::Client,
    cleaned: mpsc::UnboundedSender<String>,
}

/// Keeps, for each Probe, an owned HorizontalPodAutoscaler of the same name (applied
/// server-side, with the Probe as its controller), and reports the Probe's cleanup once
/// it is deleted; the autoscaler goes with its owner by garbage collection.
async fn reconcile(probe: Arc<Probe>, context: Arc<Context>) -> Result<Action, finalizer::Error<kube::Error>> {
    let namespace = probe.namespace().expect("Probes are namespaced");
    let probes: Api<Probe> = Api::namespaced(context.client.clone(), &namespace);
    let hpas: Api<HorizontalPodAutoscaler> = Api::namespaced(context.client.clone(), &namespace);
    finalizer(&probes, CLEANUP, probe, |event| async move {
        match event {
            finalizer::Event::Apply(probe) => {
                let owned = json!({
                    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                    "metadata": {"name": probe.name_any(), "ownerReferences": [probe.controller_owner_ref(&())]},
                    "spec": {
                        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": probe.name_any()},
                        "maxReplicas": 3
                    }
                });
                hpas.patch(&probe.name_any(), &PatchParams::apply("probe-controller").force(), &Patch::Apply(owned))
                    .await?;
                Ok(Action::await_change())
            }
            finalizer::Event::Cleanup(probe) => {
                context.cleaned.send(probe.name_any()).expect("the test listens");
                Ok(Action::await_change())
            }
        }
    })
    .await
}

/// The controller's error policy: says what failed (a failing test shows it) and tries again.
fn retry_soon(probe: Arc<Probe>, error: &finalizer::Error<kube::Error>, _: Arc<Context>) -> Action {
    eprintln!("reconciling Probe {} failed: {error}", probe.name_any());
    Action::requeue(Duration::from_millis(50))
}

#[tokio::test]
async fn a_controller_of_typed_probes() {
    for (server_name, server) in servers() {
        let client = server.client();
        let (cleaned, mut cleanups) = mpsc::unbounded_channel();
        let context = Arc::new(Context { client: client.clone(), cleaned });
        let controller = Controller::new(Api::<Probe>::all(client.clone()), watcher::Config::default())
            .owns(Api::<HorizontalPodAutoscaler>::all(client.clone()), watcher::Config::default())
            .run(reconcile, retry_soon, context)
            .for_each(|_| async {});
        let controller = tokio::spawn(controller);

        let probes: Api<Probe> = Api::namespaced(client.clone(), "monitoring");
        let hpas: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "monitoring");
        let created = probes.create(&PostParams::default(), &probe("web", "30s")).await.expect("create");
        let owner_uid = created.uid().expect("a uid");
        let owned_by_web = || async {
            let hpa = hpas.get_opt("web").await.expect("get the HPA")?;
            let owner = hpa.owner_references().first()?.clone();
            Some((hpa, owner))
        };
        let (owned, owner) = eventually("the owned HPA", owned_by_web).await;
        assert_eq!(
            (owner.uid.as_str(), owner.kind.as_str(), owner.controller),
            (owner_uid.as_str(), "Probe", Some(true))
        );
        let reconciled = probes.get("web").await.expect("get");
        assert_eq!(reconciled.finalizers(), [CLEANUP], "{server_name}");

        hpas.delete("web", &DeleteParams::default()).await.expect("delete the owned HPA");
        let replaced = || async { owned_by_web().await.filter(|(hpa, _)| hpa.uid() != owned.uid()) };
        eventually("the HPA applied again", replaced).await;

        probes.delete("web", &DeleteParams::default()).await.expect("delete");
        let cleanup = tokio::time::timeout(Duration::from_secs(10), cleanups.recv()).await;
        assert_eq!(cleanup.expect("the cleanup within 10 s").as_deref(), Some("web"), "{server_name}");
        let probe_gone = || async { probes.get_opt("web").await.expect("get").is_none().then_some(()) };
        eventually("the Probe's deletion once its finalizer is removed", probe_gone).await;
        let hpa_gone = || async { hpas.get_opt("web").await.expect("get").is_none().then_some(()) };
        eventually("the owned HPA's garbage collection", hpa_gone).await;
        controller.abort();
    }
}
