//! The registry as a test server for kube-rs code (feature `kube`): `Server::client()`
//! answers a `kube::Client` in the same process, no socket; `Server::spawn_local()` serves
//! the same router on a loopback port for tools that need a URL, such as kubectl.
//!
//! Each test builds its own reference server in memory; expected error texts are the API
//! server's own, word for word.

mod harness;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::autoscaling::v2::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec,
};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ListParams, PostParams, ResourceExt};
use kube::runtime::watcher::{self, Event};
use kube_apigen_registry::Server;

fn server() -> Server {
    apiserver::builder().build().expect("the reference server builds")
}

fn hpa(name: &str, team: &str, min_replicas: i32, max_replicas: i32) -> HorizontalPodAutoscaler {
    HorizontalPodAutoscaler {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some(BTreeMap::from([("team".to_owned(), team.to_owned())])),
            ..ObjectMeta::default()
        },
        spec: HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                api_version: Some("apps/v1".to_owned()),
                kind: "Deployment".to_owned(),
                name: name.to_owned(),
            },
            min_replicas: Some(min_replicas),
            max_replicas,
            ..HorizontalPodAutoscalerSpec::default()
        },
        status: None,
    }
}

fn names(items: &[HorizontalPodAutoscaler]) -> Vec<String> {
    items.iter().map(ResourceExt::name_any).collect()
}

#[tokio::test]
async fn a_kube_client_in_process_creates_gets_lists_and_gets_the_api_servers_422() {
    let server = server();
    let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());

    let created = hpas.create(&PostParams::default(), &hpa("web", "a", 2, 5)).await.expect("create");
    assert_eq!(created.namespace().as_deref(), Some("default"), "the client's default namespace");
    assert!(created.uid().is_some() && created.resource_version().is_some(), "{created:?}");
    assert_eq!(hpas.get("web").await.expect("get"), created);
    assert_eq!(names(&hpas.list(&ListParams::default()).await.expect("list").items), ["web"]);

    let error = hpas.create(&PostParams::default(), &hpa("new", "a", 0, 0)).await.expect_err("invalid");
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!(
        (status.code, status.reason.as_str(), status.message.as_str()),
        (
            422,
            "Invalid",
            r#"HorizontalPodAutoscaler.autoscaling "new" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than or equal to 1, spec.minReplicas: Invalid value: 0: must be greater than or equal to 1]"#
        )
    );
}

#[tokio::test]
async fn label_selectors_filter_lists_in_process() {
    let server = server();
    let namespace = Namespace {
        metadata: ObjectMeta { name: Some("team-space".to_owned()), ..ObjectMeta::default() },
        ..Namespace::default()
    };
    Api::<Namespace>::all(server.client())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("create the namespace");
    let hpas: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "team-space");
    for (name, team) in [("a1", "a"), ("b1", "b"), ("a2", "a")] {
        hpas.create(&PostParams::default(), &hpa(name, team, 1, 3)).await.expect("create");
    }
    let listed = hpas.list(&ListParams::default().labels("team=a")).await.expect("list team=a");
    assert_eq!(names(&listed.items), ["a1", "a2"]);
    let listed = hpas.list(&ListParams::default().labels("team!=a")).await.expect("list team!=a");
    assert_eq!(names(&listed.items), ["b1"]);
}

#[tokio::test]
async fn a_watcher_in_process_sees_creates_and_deletes() {
    let server = server();
    let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());
    let mut events = watcher::watcher(hpas.clone(), watcher::Config::default()).boxed();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("a watcher event within 10 s")
            .expect("no watcher error")
            .expect("the watcher goes on")
    };
    assert!(matches!(next().await, Event::Init));
    assert!(matches!(next().await, Event::InitDone));

    hpas.create(&PostParams::default(), &hpa("web", "a", 1, 3)).await.expect("create");
    match next().await {
        Event::Apply(object) => assert_eq!(object.name_any(), "web"),
        other => panic!("expected the created object, got {other:?}"),
    }
    hpas.delete("web", &Default::default()).await.expect("delete");
    match next().await {
        Event::Delete(object) => assert_eq!(object.name_any(), "web"),
        other => panic!("expected the deletion, got {other:?}"),
    }
}

/// Servers in one process share nothing: each test may have its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_servers_side_by_side_keep_their_own_objects() {
    let servers: Vec<Server> = (0..50).map(|_| server()).collect();
    let writes = servers.iter().enumerate().map(|(i, server)| async move {
        let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());
        hpas.create(&PostParams::default(), &hpa(&format!("web-{i}"), "a", 1, 3)).await.expect("create");
        names(&hpas.list(&ListParams::default()).await.expect("list").items)
    });
    let lists = futures::future::join_all(writes).await;
    for (i, list) in lists.iter().enumerate() {
        assert_eq!(list, &[format!("web-{i}")], "server {i} holds only its own object");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spawn_local_serves_kubectl_and_the_in_process_client_the_same_objects() {
    let local = server().spawn_local().await.expect("a loopback port");
    assert!(local.url().starts_with("http://127.0.0.1:"), "{}", local.url());
    let hpas: Api<HorizontalPodAutoscaler> = Api::default_namespaced(local.client());
    hpas.create(&PostParams::default(), &hpa("web", "a", 1, 3)).await.expect("create in process");

    if let Some(kubectl) = harness::find_kubectl() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(&kubeconfig, local.kubeconfig()).expect("write the kubeconfig");
        let kubeconfig_arg = format!("--kubeconfig={}", kubeconfig.display());
        let cache_arg = format!("--cache-dir={}", dir.path().join("cache").display());
        let run = |args: &[&str]| {
            let out = Command::new(&kubectl)
                .args([kubeconfig_arg.as_str(), cache_arg.as_str()])
                .args(args)
                .output()
                .expect("kubectl runs");
            assert!(out.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).expect("UTF-8 output")
        };
        let names = run(&["get", "horizontalpodautoscalers.autoscaling", "-o", "name"]);
        assert_eq!(names, "horizontalpodautoscaler.autoscaling/web\n");
        run(&["label", "--overwrite", "hpa", "web", "team=b"]);
        let labeled = hpas.get("web").await.expect("get in process");
        assert_eq!(labeled.labels().get("team").map(String::as_str), Some("b"), "kubectl's write is seen in process");
    }

    let address = local.address();
    local.stop().await.expect("a clean stop");
    assert!(tokio::net::TcpStream::connect(address).await.is_err(), "the port is closed after stop");
}
