//! The reference server as a real Kubernetes client sees it: the `kube` crate (client and
//! runtime) with k8s-openapi's types, over plain HTTP on loopback; and the Probe custom
//! resource as kube-rs users reach one, through `Api<DynamicObject>`, with the generated
//! crate's `Probe` as the typed view.
//!
//! Every test starts its own server process (`apiserver --listen 127.0.0.1:0`) and stops it
//! with SIGTERM when done; each runs on every storage backend (in memory, on a data
//! directory, on an etcd of its own). Expected error texts are the API server's own, word for word:
//! kubectl and controllers print them as they are.

mod harness;

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{Stream, StreamExt};
use generated::com::coreos::monitoring::v1::Probe;
use harness::Backend;
use harness::process::ServerProcess;
use k8s_openapi::ByteString;
use k8s_openapi::api::autoscaling::v2::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, MetricSpec, MetricTarget,
    ResourceMetricSource,
};
use k8s_openapi::api::certificates::v1::{CertificateSigningRequest, CertificateSigningRequestSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, ResourceExt, WatchEvent,
    WatchParams,
};
use kube::core::response::StatusCause;
use kube::core::{GroupVersionKind, Status, TypeMeta};
use kube::discovery::{Discovery, Scope, pinned_kind, verbs};
use kube::runtime::watcher::{self, Event};
use kube::{Client, Config};
use serde_json::json;

// ---- The server under test ----

/// The reference server on the running test's storage backend.
fn start() -> ServerProcess {
    ServerProcess::start_on(Backend::current(), &[]).expect("an etcd binary (checked before the test)")
}

/// A kube client of `server`.
fn client(server: &ServerProcess) -> Client {
    let config = Config::new(server.url.parse().expect("the printed URL is a URI"));
    assert_eq!(config.default_namespace, "default");
    Client::try_from(config).expect("a kube client for plain HTTP")
}

// ---- Objects ----

fn hpa(name: &str, max_replicas: i32) -> HorizontalPodAutoscaler {
    HorizontalPodAutoscaler {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some(BTreeMap::from([("app".to_owned(), "web".to_owned())])),
            ..ObjectMeta::default()
        },
        spec: HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                api_version: Some("apps/v1".to_owned()),
                kind: "Deployment".to_owned(),
                name: "web".to_owned(),
            },
            min_replicas: Some(2),
            max_replicas,
            metrics: Some(vec![MetricSpec {
                type_: "Resource".to_owned(),
                resource: Some(ResourceMetricSource {
                    name: "cpu".to_owned(),
                    target: MetricTarget {
                        type_: "Utilization".to_owned(),
                        average_utilization: Some(80),
                        ..MetricTarget::default()
                    },
                }),
                ..MetricSpec::default()
            }]),
            behavior: None,
        },
        status: None,
    }
}

/// `metadata.resourceVersion` as a number: the reference server's versions are a counter.
fn rv<K: ResourceExt>(object: &K) -> u64 {
    let text = object.resource_version().unwrap_or_else(|| panic!("{} has no resourceVersion", object.name_any()));
    text.parse().unwrap_or_else(|_| panic!("resourceVersion {text:?} is not a number"))
}

/// The Status inside a `kube::Error::Api`, or a panic naming what came instead.
#[track_caller]
fn api_error<T: std::fmt::Debug>(result: kube::Result<T>) -> Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error Status, got {other:?}"),
    }
}

#[track_caller]
fn assert_status(status: &Status, code: u16, reason: &str, message: &str) {
    assert_eq!((status.code, status.reason.as_str(), status.message.as_str()), (code, reason, message), "{status:#?}");
    assert!(status.is_failure(), "status: Failure expected in {status:#?}");
}

fn cause(reason: &str, message: &str, field: &str) -> StatusCause {
    StatusCause { reason: reason.to_owned(), message: message.to_owned(), field: field.to_owned() }
}

/// The next event of a watcher, failing after 10 s.
async fn next_event<K, S>(stream: &mut S, waiting_for: &str) -> Event<K>
where
    S: Stream<Item = Result<Event<K>, watcher::Error>> + Unpin,
{
    match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
        Ok(Some(Ok(event))) => event,
        Ok(Some(Err(e))) => panic!("watcher error while waiting for {waiting_for}: {e:?}"),
        Ok(None) => panic!("watcher ended while waiting for {waiting_for}"),
        Err(_) => panic!("no watcher event within 10 s while waiting for {waiting_for}"),
    }
}

/// A PEM `CERTIFICATE REQUEST` made with `openssl req -new -newkey ec -pkeyopt
/// ec_paramgen_curve:prime256v1 -subj "/CN=system:node:worker-1/O=system:nodes"`; its
/// self-signature verifies (`openssl req -verify`).
const PEM_REQUEST: &str = "-----BEGIN CERTIFICATE REQUEST-----
MIHxMIGYAgEAMDYxHTAbBgNVBAMMFHN5c3RlbTpub2RlOndvcmtlci0xMRUwEwYD
VQQKDAxzeXN0ZW06bm9kZXMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASKC+rU
qvDwytlc2H/BMBt9a9C4SmruyBPZL2m3byuaaEl3g+VnEAxIwRwvhFsKDMV1Flzp
GPv+gcuKpGFJMyBcoAAwCgYIKoZIzj0EAwIDSAAwRQIhAIwhqgjodtPOyyi4NL+D
PwL2hYMAYUEbst2hbg/8taglAiAgFdcJMUKViMgdjqOA5ljcJp0kGcKuco2Pnv14
Wpz4Cg==
-----END CERTIFICATE REQUEST-----
";

// ---- Tests ----
fn applied(name: &str, min: i32, max: i32) -> serde_json::Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": {"team": "a"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": min,
            "maxReplicas": max,
        },
    })
}

/// The duration pattern of the Probe CRD (`spec.interval`, `spec.scrapeTimeout`), as the
/// API server quotes it in a 422.
const DURATION_PATTERN: &str =
    "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$";

fn probe_gvk() -> GroupVersionKind {
    GroupVersionKind::gvk("monitoring.coreos.com", "v1", "Probe")
}

/// What a kube-rs user writes for a custom resource without discovery.
fn probe_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(&probe_gvk(), "probes")
}

/// `fixtures/kubectl/probe.yaml` (the blackbox-http Probe) as JSON.
///
/// This test crate has no YAML library of its own. kube's kubeconfig reader parses YAML
/// (with serde-saphyr, as the server does) and keeps the top-level keys a kubeconfig does
/// not model in `other` (`metadata` and `spec`); `apiVersion` and `kind` are its own
/// fields. A few leaves are checked so that a reader losing something is noticed.
fn probe_fixture() -> serde_json::Value {
    let parsed =
        kube::config::Kubeconfig::from_yaml(include_str!("fixtures/kubectl/probe.yaml")).expect("probe.yaml is YAML");
    let mut object: serde_json::Map<String, serde_json::Value> = parsed.other.into_iter().collect();
    object.insert("apiVersion".to_owned(), json!(parsed.api_version));
    object.insert("kind".to_owned(), json!(parsed.kind));
    let object = serde_json::Value::Object(object);
    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(object["metadata"], json!({"name": "blackbox-http", "labels": {"team": "web"}}));
    let spec = object["spec"].as_object().expect("spec");
    assert_eq!(
        spec.keys().map(String::as_str).collect::<Vec<_>>(),
        ["interval", "jobName", "metricRelabelings", "module", "prober", "scrapeTimeout", "targets", "tlsConfig"]
    );
    assert_eq!(spec["prober"]["path"], "/probe");
    assert_eq!(
        spec["targets"]["staticConfig"]["static"],
        json!(["https://example.com", "https://example.org/healthz"])
    );
    assert_eq!(spec["tlsConfig"]["insecureSkipVerify"], json!(false));
    object
}

/// The fixture named `name`, without `spec.prober.path` (the CRD defaults it to `/probe`).
fn probe(name: &str) -> DynamicObject {
    let mut object = probe_fixture();
    object["metadata"]["name"] = json!(name);
    object["spec"]["prober"].as_object_mut().expect("prober").remove("path");
    serde_json::from_value(object).expect("the fixture is a DynamicObject")
}

/// The typed view of a Probe the server answered: the generated model, through serde. It
/// must keep everything: serialized again, it is the JSON the server sent.
#[track_caller]
fn typed(object: &DynamicObject) -> Probe {
    let value = serde_json::to_value(object).expect("a DynamicObject serializes");
    let probe: Probe =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("not a generated Probe: {e}\n{value:#}"));
    assert_eq!(
        serde_json::to_value(&probe).expect("a Probe serializes"),
        value,
        "the generated Probe round-trips what the server sent"
    );
    probe
}

/// `spec.prober.path` of the typed view.
#[track_caller]
fn typed_path(object: &DynamicObject) -> Option<String> {
    typed(object).spec.and_then(|s| s.prober).and_then(|p| p.path)
}

fn names(items: &[DynamicObject]) -> Vec<String> {
    items.iter().map(ResourceExt::name_any).collect()
}

/// `(manager, operation)` of each `metadata.managedFields` entry.
fn managers(object: &DynamicObject) -> Vec<(String, String)> {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| (m.manager.clone().unwrap_or_default(), m.operation.clone().unwrap_or_default()))
        .collect()
}

/// The next event of a raw watch, bookmarks skipped, failing after 10 s.
async fn next_watch_event<S>(stream: &mut S, waiting_for: &str) -> WatchEvent<DynamicObject>
where
    S: Stream<Item = kube::Result<WatchEvent<DynamicObject>>> + Unpin,
{
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
            Ok(Some(Ok(WatchEvent::Bookmark(_)))) => {}
            Ok(Some(Ok(event))) => return event,
            Ok(Some(Err(e))) => panic!("watch error while waiting for {waiting_for}: {e:?}"),
            Ok(None) => panic!("watch ended while waiting for {waiting_for}"),
            Err(_) => panic!("no watch event within 10 s while waiting for {waiting_for}"),
        }
    }
}
harness::backend_tests! {
    async fn hpa_create_get_replace_delete() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::default_namespaced(client(&server));
        let pp = PostParams::default();

        let created = api.create(&pp, &hpa("web", 5)).await.expect("create");
        assert_eq!(created.metadata.name.as_deref(), Some("web"));
        assert_eq!(created.metadata.namespace.as_deref(), Some("default"));
        assert!(created.metadata.uid.as_deref().is_some_and(|u| !u.is_empty()), "uid set");
        assert!(created.metadata.creation_timestamp.is_some(), "creationTimestamp set");
        assert_eq!(created.labels().get("app").map(String::as_str), Some("web"));
        assert_eq!(created.spec, hpa("web", 5).spec);
        let created_rv = rv(&created);

        let got = api.get("web").await.expect("get");
        assert_eq!(got, created, "get returns what create returned");

        let mut changed = got.clone();
        changed.spec.max_replicas = 10;
        let replaced = api.replace("web", &pp, &changed).await.expect("replace");
        assert_eq!(replaced.spec.max_replicas, 10);
        assert!(rv(&replaced) > created_rv, "replace moves the resourceVersion forward");
        assert_eq!(replaced.metadata.uid, created.metadata.uid);
        assert_eq!(replaced.metadata.creation_timestamp, created.metadata.creation_timestamp);
        assert_eq!(api.get("web").await.expect("get after replace"), replaced);

        // `changed` still carries the old resourceVersion.
        let stale = api_error(api.replace("web", &pp, &changed).await);
        assert_status(
            &stale,
            409,
            "Conflict",
            r#"Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling "web": the object has been modified; please apply your changes to the latest version and try again"#,
        );
        let duplicate = api_error(api.create(&pp, &hpa("web", 5)).await);
        assert_status(&duplicate, 409, "AlreadyExists", r#"horizontalpodautoscalers.autoscaling "web" already exists"#);

        // The API server answers the deleted object or a Success Status.
        let deleted = api.delete("web", &DeleteParams::default()).await.expect("delete");
        if let Some(object) = deleted.as_ref().left() {
            assert_eq!(object.metadata.uid, created.metadata.uid, "the deleted object");
        }
        if let Some(status) = deleted.as_ref().right() {
            assert!(status.is_success(), "{status:?}");
        }
        let missing = api_error(api.get("web").await);
        assert_status(&missing, 404, "NotFound", r#"horizontalpodautoscalers.autoscaling "web" not found"#);
        let details = missing.details.as_ref().expect("NotFound details");
        assert_eq!(
            (details.name.as_str(), details.group.as_str(), details.kind.as_str()),
            ("web", "autoscaling", "horizontalpodautoscalers")
        );
        let again = api_error(api.delete("web", &DeleteParams::default()).await);
        assert_eq!((again.code, again.reason.as_str()), (404, "NotFound"), "{again:?}");
        assert!(api.list(&ListParams::default()).await.expect("list").items.is_empty());
    }

    async fn list_pages_with_limit_and_continue() {
        let server = start();
        let client = client(&server);
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "paging");
        let pp = PostParams::default();
        let mut expected = Vec::new();
        for i in 0..5 {
            let name = format!("hpa-{i}");
            api.create(&pp, &hpa(&name, 3)).await.expect("create");
            expected.push(name);
        }
        // Another namespace's object is no part of the namespaced list.
        let other: Api<HorizontalPodAutoscaler> = Api::namespaced(client, "elsewhere");
        other.create(&pp, &hpa("hpa-x", 3)).await.expect("create elsewhere");

        let mut seen = Vec::new();
        let mut pages = Vec::new();
        let mut params = ListParams::default().limit(2);
        loop {
            let page = api.list(&params).await.expect("list page");
            assert!(page.items.len() <= 2, "a page of {} items despite limit=2", page.items.len());
            pages.push(page.items.len());
            seen.extend(page.items.iter().map(|o| o.name_any()));
            assert!(pages.len() <= 5, "more pages than objects: {pages:?}");
            match page.metadata.continue_.as_deref() {
                Some(token) if !token.is_empty() => {
                    if let Some(remaining) = page.metadata.remaining_item_count {
                        assert_eq!(remaining as usize, 5 - seen.len(), "remainingItemCount");
                    }
                    params = ListParams::default().limit(2).continue_token(token);
                }
                _ => break,
            }
        }
        assert_eq!(pages, [2, 2, 1], "page sizes");
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), seen.len(), "an object was listed twice: {seen:?}");
        assert_eq!(sorted, expected, "every object exactly once");
    }

    /// A continued list is a snapshot: the API server serves every page at the resourceVersion
    /// of the first, so writes between pages neither add nor remove items.
    async fn continued_list_pages_are_a_consistent_snapshot() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client(&server), "snapshot");
        let pp = PostParams::default();
        for i in 0..5 {
            api.create(&pp, &hpa(&format!("hpa-{i}"), 3)).await.expect("create");
        }
        let first = api.list(&ListParams::default().limit(2)).await.expect("first page");
        let token = first.metadata.continue_.clone().expect("a continue token after 2 of 5");
        let snapshot_rv = first.metadata.resource_version.clone().expect("list resourceVersion");
        // Between pages: a new object that sorts last and the deletion of one not yet listed.
        api.create(&pp, &hpa("hpa-9", 3)).await.expect("create between pages");
        api.delete("hpa-4", &DeleteParams::default()).await.expect("delete between pages");

        let mut names: Vec<String> = first.items.iter().map(|o| o.name_any()).collect();
        let mut params = ListParams::default().limit(2).continue_token(&token);
        for _ in 0..5 {
            let page = api.list(&params).await.expect("continued page");
            assert_eq!(
                page.metadata.resource_version.as_deref(),
                Some(snapshot_rv.as_str()),
                "every page is served at the first page's resourceVersion"
            );
            names.extend(page.items.iter().map(|o| o.name_any()));
            match page.metadata.continue_.as_deref() {
                Some(token) if !token.is_empty() => params = ListParams::default().limit(2).continue_token(token),
                _ => break,
            }
        }
        assert_eq!(names, ["hpa-0", "hpa-1", "hpa-2", "hpa-3", "hpa-4"]);
    }

    async fn watcher_sees_every_write_in_order() {
        let server = start();
        let client = client(&server);
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "watched");
        let noise: Api<HorizontalPodAutoscaler> = Api::namespaced(client, "elsewhere");
        let pp = PostParams::default();
        let pre = api.create(&pp, &hpa("pre", 3)).await.expect("create pre");
        let mut noisy = noise.create(&pp, &hpa("noise", 3)).await.expect("create noise");

        // The default configuration: list (pages of 500) then watch from the list's
        // resourceVersion with allowWatchBookmarks=true.
        let mut stream = watcher::watcher(api.clone(), watcher::Config::default()).boxed();
        assert!(matches!(next_event(&mut stream, "Init").await, Event::Init));
        match next_event(&mut stream, "InitApply(pre)").await {
            Event::InitApply(object) => assert_eq!(object, pre),
            other => panic!("expected InitApply(pre), got {other:?}"),
        }
        assert!(matches!(next_event(&mut stream, "InitDone").await, Event::InitDone));

        let mut last_rv = rv(&pre);
        let mut expect_apply =
            async |stream: &mut _, written: &HorizontalPodAutoscaler, what: &str| match next_event(stream, what).await {
                Event::Apply(object) => {
                    assert_eq!(&object, written, "{what}: the event carries the written object");
                    assert!(rv(&object) > last_rv, "{what}: resourceVersion goes forward");
                    last_rv = rv(&object);
                }
                other => panic!("{what}: expected Apply, got {other:?}"),
            };
        // The first write happens before the watch request is even sent (the watcher sends it
        // when polled), so it must come from the server's history; the rest arrive live.
        let a1 = api.create(&pp, &hpa("a", 4)).await.expect("create a");
        expect_apply(&mut stream, &a1, "create a").await;
        let b1 = api.create(&pp, &hpa("b", 4)).await.expect("create b");
        expect_apply(&mut stream, &b1, "create b").await;
        // Writes elsewhere are not this watch's business.
        noisy.spec.max_replicas = 9;
        noise.replace("noise", &pp, &noisy).await.expect("replace noise");
        let mut a1_changed = a1.clone();
        a1_changed.spec.max_replicas = 6;
        let a2 = api.replace("a", &pp, &a1_changed).await.expect("replace a");
        expect_apply(&mut stream, &a2, "replace a").await;
        let a3 = api
            .patch("a", &PatchParams::default(), &Patch::Merge(json!({"spec": {"maxReplicas": 7}})))
            .await
            .expect("merge-patch a");
        assert_eq!(a3.spec.max_replicas, 7);
        expect_apply(&mut stream, &a3, "merge-patch a").await;

        let mut last_rv_after_deletes = last_rv;
        for (name, uid) in [("b", b1.uid()), ("pre", pre.uid())] {
            api.delete(name, &DeleteParams::default()).await.expect("delete");
            match next_event(&mut stream, &format!("delete {name}")).await {
                Event::Delete(object) => {
                    assert_eq!((object.name_any(), object.uid()), (name.to_owned(), uid));
                    assert!(rv(&object) > last_rv_after_deletes, "delete {name}: RV goes forward");
                    last_rv_after_deletes = rv(&object);
                }
                other => panic!("delete {name}: expected Delete, got {other:?}"),
            }
        }
        let deleted_rv = last_rv_after_deletes;
        let a4 = api
            .patch("a", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"step": "4"}}})))
            .await
            .expect("label a");
        assert!(rv(&a4) > deleted_rv);
        match next_event(&mut stream, "label a").await {
            Event::Apply(object) => assert_eq!(object, a4),
            other => panic!("label a: expected Apply, got {other:?}"),
        }
        api.delete("a", &DeleteParams::default()).await.expect("delete a");
        match next_event(&mut stream, "delete a").await {
            Event::Delete(object) => {
                assert_eq!(object.uid(), a1.uid());
                assert!(rv(&object) > rv(&a4));
            }
            other => panic!("delete a: expected Delete, got {other:?}"),
        }
        // Nothing else: bookmarks are swallowed by the watcher, and no write is left.
        if let Ok(extra) = tokio::time::timeout(Duration::from_millis(500), stream.next()).await {
            panic!("unexpected extra watcher item: {extra:?}");
        }
    }

    /// kube-runtime's opt-in streaming list: a watch with `sendInitialEvents=true` and
    /// `resourceVersionMatch=NotOlderThan`, whose initial events end with a BOOKMARK annotated
    /// `k8s.io/initial-events-end: "true"`.
    async fn watcher_with_streaming_list() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client(&server), "streamed");
        let pp = PostParams::default();
        let pre = api.create(&pp, &hpa("pre", 3)).await.expect("create pre");
        let mut stream = watcher::watcher(api.clone(), watcher::Config::default().streaming_lists()).boxed();
        assert!(matches!(next_event(&mut stream, "Init").await, Event::Init));
        match next_event(&mut stream, "InitApply(pre)").await {
            Event::InitApply(object) => assert_eq!(object, pre),
            other => panic!("expected InitApply(pre), got {other:?}"),
        }
        assert!(matches!(next_event(&mut stream, "InitDone").await, Event::InitDone));
        let a = api.create(&pp, &hpa("a", 4)).await.expect("create a");
        match next_event(&mut stream, "create a").await {
            Event::Apply(object) => assert_eq!(object, a),
            other => panic!("expected Apply(a), got {other:?}"),
        }
    }


    async fn server_side_apply_creates_then_changes() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client(&server), "ssa");
        let mgr = PatchParams::apply("mgr");

        let created = api.patch("web", &mgr, &Patch::Apply(applied("web", 2, 5))).await.expect("apply");
        assert_eq!(created.metadata.namespace.as_deref(), Some("ssa"));
        assert_eq!((created.spec.min_replicas, created.spec.max_replicas), (Some(2), 5));
        assert_eq!(created.labels().get("team").map(String::as_str), Some("a"));
        assert_eq!(api.get("web").await.expect("get"), created);

        // Another manager's field, set with a merge patch, survives the next apply.
        api.patch("web", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"annotations": {"owner": "other"}}})))
            .await
            .expect("merge-patch an annotation");

        let changed = api.patch("web", &mgr, &Patch::Apply(applied("web", 2, 8))).await.expect("re-apply");
        assert_eq!(changed.spec.max_replicas, 8);
        assert_eq!(changed.uid(), created.uid());
        assert!(rv(&changed) > rv(&created));
        assert_eq!(changed.annotations().get("owner").map(String::as_str), Some("other"));
        assert_eq!(api.get("web").await.expect("get"), changed);

        // Applying the same configuration again changes nothing.
        let same = api.patch("web", &mgr, &Patch::Apply(applied("web", 2, 8))).await.expect("no-op");
        assert_eq!(same, changed, "a no-op apply writes nothing");
    }

    async fn server_side_apply_422_carries_the_causes() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client(&server), "ssa");
        let mgr = PatchParams::apply("mgr");
        api.patch("web", &mgr, &Patch::Apply(applied("web", 2, 5))).await.expect("apply");

        // A CEL rule of the spec: maxReplicas >= minReplicas.
        let status = api_error(api.patch("web", &mgr, &Patch::Apply(applied("web", 3, 2))).await);
        assert_status(
            &status,
            422,
            "Invalid",
            r#"HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.maxReplicas: Invalid value: "object": maxReplicas must be greater than or equal to minReplicas"#,
        );
        let details = status.details.expect("details");
        assert_eq!(
            (details.name.as_str(), details.group.as_str(), details.kind.as_str()),
            ("web", "autoscaling", "HorizontalPodAutoscaler")
        );
        assert_eq!(
            details.causes,
            [cause(
                "FieldValueInvalid",
                r#"Invalid value: "object": maxReplicas must be greater than or equal to minReplicas"#,
                "spec.maxReplicas",
            )]
        );

        // Two errors at once, on an object that does not exist yet: both are reported.
        let status = api_error(api.patch("new", &mgr, &Patch::Apply(applied("new", 0, 0))).await);
        assert_status(
            &status,
            422,
            "Invalid",
            r#"HorizontalPodAutoscaler.autoscaling "new" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than or equal to 1, spec.minReplicas: Invalid value: 0: must be greater than or equal to 1]"#,
        );
        assert_eq!(
            status.details.expect("details").causes,
            [
                cause("FieldValueInvalid", "Invalid value: 0: must be greater than or equal to 1", "spec.maxReplicas"),
                cause("FieldValueInvalid", "Invalid value: 0: must be greater than or equal to 1", "spec.minReplicas"),
            ]
        );
        // Neither invalid apply wrote anything.
        assert_eq!(api.get("web").await.expect("get").spec.max_replicas, 5);
        let missing = api_error(api.get("new").await);
        assert_eq!(missing.code, 404, "{missing:?}");
    }

    /// What server-side apply records and enforces: `managedFields` naming the manager, fields
    /// the manager stops applying are removed, and another manager's change to an owned field
    /// is a 409 conflict unless forced.
    async fn server_side_apply_tracks_field_ownership() {
        let server = start();
        let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client(&server), "ssa");
        let created =
            api.patch("web", &PatchParams::apply("mgr"), &Patch::Apply(applied("web", 2, 5))).await.expect("apply");
        let managers: Vec<(&str, &str)> = created
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .map(|m| (m.manager.as_deref().unwrap_or(""), m.operation.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(managers, [("mgr", "Apply")], "managedFields");

        // "other" applies only maxReplicas, which "mgr" owns with another value.
        let only_max = json!({
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"maxReplicas": 7},
        });
        let status = api_error(api.patch("web", &PatchParams::apply("other"), &Patch::Apply(&only_max)).await);
        assert_status(&status, 409, "Conflict", r#"Apply failed with 1 conflict: conflict with "mgr": .spec.maxReplicas"#);
        let forced =
            api.patch("web", &PatchParams::apply("other").force(), &Patch::Apply(&only_max)).await.expect("forced apply");
        assert_eq!(forced.spec.max_replicas, 7);
        assert_eq!(forced.spec.min_replicas, Some(2), "mgr's other fields stay");

        // "mgr" stops applying minReplicas and its label, which it alone owns: both are
        // removed. It applies maxReplicas with the value "other" set: shared, no conflict.
        let mut without = applied("web", 2, 7);
        without["spec"].as_object_mut().expect("spec").remove("minReplicas");
        without["metadata"].as_object_mut().expect("metadata").remove("labels");
        let dropped =
            api.patch("web", &PatchParams::apply("mgr"), &Patch::Apply(without)).await.expect("apply without minReplicas");
        assert_eq!(dropped.spec.max_replicas, 7);
        assert_eq!(dropped.spec.min_replicas, None, "minReplicas removed");
        assert!(dropped.labels().get("team").is_none(), "label removed");
    }

    async fn csr_create_and_get_with_a_pem_request() {
        let server = start();
        let api: Api<CertificateSigningRequest> = Api::all(client(&server));
        let csr = CertificateSigningRequest {
            metadata: ObjectMeta { name: Some("node-csr-worker-1".to_owned()), ..ObjectMeta::default() },
            spec: CertificateSigningRequestSpec {
                request: ByteString(PEM_REQUEST.as_bytes().to_vec()),
                signer_name: "kubernetes.io/kube-apiserver-client-kubelet".to_owned(),
                expiration_seconds: Some(86_400),
                usages: Some(vec!["digital signature".to_owned(), "client auth".to_owned()]),
                ..CertificateSigningRequestSpec::default()
            },
            status: None,
        };
        let created = api.create(&PostParams::default(), &csr).await.expect("create CSR");
        assert_eq!(created.metadata.name.as_deref(), Some("node-csr-worker-1"));
        assert_eq!(created.metadata.namespace, None, "cluster-scoped");
        assert!(created.metadata.uid.is_some());
        rv(&created);
        assert_eq!(created.spec.request.0, PEM_REQUEST.as_bytes(), "the PEM request round-trips");
        assert_eq!(created.spec.signer_name, csr.spec.signer_name);
        assert_eq!(created.spec.usages, csr.spec.usages);
        assert_eq!(created.spec.expiration_seconds, Some(86_400));

        let got = api.get("node-csr-worker-1").await.expect("get CSR");
        assert_eq!(got, created);
        let listed = api.list(&ListParams::default()).await.expect("list CSRs");
        assert_eq!(listed.items, [created]);

        // expirationSeconds has a minimum of 600.
        let mut short = csr.clone();
        short.metadata.name = Some("short".to_owned());
        short.spec.expiration_seconds = Some(599);
        let status = api_error(api.create(&PostParams::default(), &short).await);
        assert_status(
            &status,
            422,
            "Invalid",
            r#"CertificateSigningRequest.certificates.k8s.io "short" is invalid: spec.expirationSeconds: Invalid value: 599: must be greater than or equal to 600"#,
        );
    }

    async fn discovery_finds_both_resources() {
        let server = start();
        let client = client(&server);
        let version = client.apiserver_version().await.expect("/version");
        let expected = &generated::server::CATALOG.version;
        assert_eq!(
            (version.major.as_str(), version.minor.as_str(), version.git_version.as_str()),
            (expected.major, expected.minor, expected.git_version)
        );

        let discovery = Discovery::new(client.clone())
            .filter(&["autoscaling", "certificates.k8s.io"])
            .run()
            .await
            .expect("discovery of /apis");
        let (hpa_resource, hpa_caps) = discovery
            .resolve_gvk(&GroupVersionKind::gvk("autoscaling", "v2", "HorizontalPodAutoscaler"))
            .expect("HorizontalPodAutoscaler discovered");
        assert_eq!(hpa_resource.plural, "horizontalpodautoscalers");
        assert_eq!(hpa_caps.scope, Scope::Namespaced);
        for verb in [verbs::CREATE, verbs::GET, verbs::LIST, verbs::WATCH, verbs::PATCH, verbs::DELETE] {
            assert!(hpa_caps.supports_operation(verb), "HPA verb {verb}");
        }
        let (csr_resource, csr_caps) = discovery
            .resolve_gvk(&GroupVersionKind::gvk("certificates.k8s.io", "v1", "CertificateSigningRequest"))
            .expect("CertificateSigningRequest discovered");
        assert_eq!(csr_resource.plural, "certificatesigningrequests");
        assert_eq!(csr_caps.scope, Scope::Cluster);

        // The discovered resource drives a dynamic client.
        let typed: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "dyn");
        typed.create(&PostParams::default(), &hpa("web", 3)).await.expect("create");
        let dynamic: Api<DynamicObject> = Api::namespaced_with(client, "dyn", &hpa_resource);
        let listed = dynamic.list(&ListParams::default()).await.expect("dynamic list");
        assert_eq!(listed.items.len(), 1);
        assert_eq!(listed.items[0].data["spec"]["maxReplicas"], json!(3));
    }

    // ---- The Probe custom resource (monitoring.coreos.com/v1) ----
    //
    // kube-rs has no Rust type for a custom resource someone else defined: a client uses
    // `Api<DynamicObject>` with an `ApiResource` (or one found by discovery) and converts what
    // it gets with serde into a model of its own, here the generated crate's `Probe`.









    async fn probe_create_get_list_replace_patch_delete() {
        let server = start();
        let client = client(&server);
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "monitoring", &probe_resource());
        let pp = PostParams::default();

        let written = probe("blackbox-http");
        assert!(written.data["spec"]["prober"].get("path").is_none());
        // A dry run answers the object as it would be stored, and stores nothing.
        let dry = PostParams { dry_run: true, ..PostParams::default() };
        let dry_created = api.create(&dry, &written).await.expect("dry-run create");
        assert_eq!(dry_created.data["spec"]["prober"]["path"], "/probe");
        let not_stored = api_error(api.get("blackbox-http").await);
        assert_eq!(not_stored.code, 404, "{not_stored:?}");
        let created = api.create(&pp, &written).await.expect("create");
        assert_eq!(
            created.types,
            Some(TypeMeta { api_version: "monitoring.coreos.com/v1".to_owned(), kind: "Probe".to_owned() })
        );
        assert_eq!(created.metadata.name.as_deref(), Some("blackbox-http"));
        assert_eq!(created.metadata.namespace.as_deref(), Some("monitoring"));
        assert!(created.metadata.uid.as_deref().is_some_and(|u| !u.is_empty()), "uid set");
        assert!(created.metadata.creation_timestamp.is_some());
        assert_eq!(created.metadata.generation, Some(1));
        assert_eq!(created.labels().get("team").map(String::as_str), Some("web"));
        // The server applied the CRD default: the stored spec is the fixture's, path included.
        assert_eq!(created.data["spec"]["prober"]["path"], "/probe", "default");
        assert_eq!(created.data["spec"], probe_fixture()["spec"]);
        let created_rv = rv(&created);

        // The typed view of the same object.
        let model = typed(&created);
        let meta = model.metadata.as_ref().expect("metadata");
        assert_eq!(meta.uid, created.metadata.uid);
        assert_eq!(meta.resource_version, created.metadata.resource_version);
        let spec = model.spec.as_ref().expect("spec");
        let prober = spec.prober.as_ref().expect("prober");
        assert_eq!(prober.path.as_deref(), Some("/probe"));
        assert_eq!(prober.url.as_deref(), Some("blackbox-exporter.monitoring.svc:9115"));
        assert_eq!(prober.scheme.as_ref().map(|s| s.as_str()), Some("http"));
        assert!(prober.scheme.as_ref().is_some_and(|s| s.is_known()));
        assert_eq!(spec.module.as_deref(), Some("http_2xx"));
        assert_eq!(spec.interval.as_deref(), Some("30s"));
        let statics = spec.targets.as_ref().and_then(|t| t.static_config.as_ref()).and_then(|c| c.static_.clone());
        assert_eq!(statics.as_deref(), Some(&["https://example.com", "https://example.org/healthz"].map(String::from)[..]));
        let relabeling = &spec.metric_relabelings.as_deref().expect("relabelings")[0];
        assert_eq!(relabeling.action.as_ref().map(|a| a.as_str()), Some("drop"));
        assert!(kube_apigen::Validate::validate(&model).is_empty(), "the stored Probe passes the generated validation");

        let got = api.get("blackbox-http").await.expect("get");
        assert_eq!(got, created, "get returns what create returned");

        // Another team's Probe here, and one in another namespace; then label selectors.
        let mut db = probe("blackbox-db");
        db.labels_mut().insert("team".to_owned(), "db".to_owned());
        api.create(&pp, &db).await.expect("create blackbox-db");
        let elsewhere: Api<DynamicObject> = Api::namespaced_with(client.clone(), "elsewhere", &probe_resource());
        elsewhere.create(&pp, &probe("blackbox-http")).await.expect("create elsewhere");
        let list = async |api: &Api<DynamicObject>, selector: &str| {
            api.list(&ListParams::default().labels(selector))
                .await
                .unwrap_or_else(|e| panic!("list {selector}: {e:?}"))
                .items
        };
        let web = list(&api, "team=web").await;
        assert_eq!(names(&web), ["blackbox-http"]);
        assert_eq!(web[0].data, created.data, "a listed item is the object");
        assert_eq!(web[0].metadata, created.metadata);
        assert_eq!(names(&list(&api, "team!=web").await), ["blackbox-db"]);
        assert_eq!(names(&list(&api, "team in (db,web)").await), ["blackbox-db", "blackbox-http"]);
        assert!(list(&api, "team=none").await.is_empty());
        let by_name =
            api.list(&ListParams::default().fields("metadata.name=blackbox-db")).await.expect("list by field selector");
        assert_eq!(names(&by_name.items), ["blackbox-db"]);
        let all: Api<DynamicObject> = Api::all_with(client, &probe_resource());
        let everywhere: Vec<(String, String)> =
            list(&all, "team=web").await.iter().map(|o| (o.namespace().unwrap_or_default(), o.name_any())).collect();
        assert_eq!(
            everywhere,
            [("elsewhere".to_owned(), "blackbox-http".to_owned()), ("monitoring".to_owned(), "blackbox-http".to_owned())]
        );

        // Replace: another interval and a third target.
        let mut changed = got.clone();
        changed.data["spec"]["interval"] = json!("60s");
        changed.data["spec"]["targets"]["staticConfig"]["static"]
            .as_array_mut()
            .expect("static")
            .push(json!("https://example.net"));
        let replaced = api.replace("blackbox-http", &pp, &changed).await.expect("replace");
        assert_eq!(replaced.data["spec"], changed.data["spec"]);
        assert!(rv(&replaced) > created_rv);
        assert_eq!(replaced.metadata.generation, Some(2), "a spec change");
        assert_eq!(replaced.metadata.uid, created.metadata.uid);
        assert_eq!(replaced.metadata.creation_timestamp, created.metadata.creation_timestamp);
        assert_eq!(typed(&replaced).spec.and_then(|s| s.interval).as_deref(), Some("60s"));
        assert_eq!(api.get("blackbox-http").await.expect("get"), replaced);
        // `changed` still carries the old resourceVersion.
        let stale = api_error(api.replace("blackbox-http", &pp, &changed).await);
        assert_status(
            &stale,
            409,
            "Conflict",
            r#"Operation cannot be fulfilled on probes.monitoring.coreos.com "blackbox-http": the object has been modified; please apply your changes to the latest version and try again"#,
        );
        let duplicate = api_error(api.create(&pp, &probe("blackbox-http")).await);
        assert_status(&duplicate, 409, "AlreadyExists", r#"probes.monitoring.coreos.com "blackbox-http" already exists"#);

        // Merge patches: another path, then `path: null`, which removes it: the default is
        // applied again.
        let patched = api
            .patch(
                "blackbox-http",
                &PatchParams::default(),
                &Patch::Merge(json!({
                    "metadata": {"labels": {"tier": "edge"}},
                    "spec": {"module": "http_post_2xx", "prober": {"path": "/blackbox/probe"}},
                })),
            )
            .await
            .expect("merge patch");
        assert_eq!(patched.data["spec"]["module"], "http_post_2xx");
        assert_eq!(typed_path(&patched).as_deref(), Some("/blackbox/probe"));
        assert_eq!(patched.labels().get("tier").map(String::as_str), Some("edge"));
        assert_eq!(patched.labels().get("team").map(String::as_str), Some("web"));
        assert_eq!(patched.metadata.generation, Some(3));
        assert!(rv(&patched) > rv(&replaced));
        let reset = api
            .patch("blackbox-http", &PatchParams::default(), &Patch::Merge(json!({"spec": {"prober": {"path": null}}})))
            .await
            .expect("merge patch path: null");
        assert_eq!(reset.data["spec"]["prober"]["path"], "/probe", "default again");
        assert_eq!(typed_path(&reset).as_deref(), Some("/probe"));
        assert_eq!(api.get("blackbox-http").await.expect("get"), reset);

        // Delete: the deleted object or a Success Status.
        let deleted = api.delete("blackbox-http", &DeleteParams::default()).await.expect("delete");
        if let Some(object) = deleted.as_ref().left() {
            assert_eq!(object.metadata.uid, created.metadata.uid, "the deleted object");
        }
        if let Some(status) = deleted.as_ref().right() {
            assert!(status.is_success(), "{status:?}");
        }
        let missing = api_error(api.get("blackbox-http").await);
        assert_status(&missing, 404, "NotFound", r#"probes.monitoring.coreos.com "blackbox-http" not found"#);
        let details = missing.details.as_ref().expect("NotFound details");
        assert_eq!(
            (details.name.as_str(), details.group.as_str(), details.kind.as_str()),
            ("blackbox-http", "monitoring.coreos.com", "probes")
        );
        assert_eq!(names(&api.list(&ListParams::default()).await.expect("list").items), ["blackbox-db"]);
    }

    /// A Probe built with the generated types goes through `Api<DynamicObject>` as JSON, and
    /// the generated validation predicts the server's 422 word for word.
    async fn probe_from_the_generated_model() {
        use generated::apimachinery::pkg::apis::meta::v1::ObjectMeta as GeneratedMeta;
        use generated::com::coreos::monitoring::v1::{ProbeProber, ProbeSpec, ProbeStaticConfig, ProbeTargets};

        let server = start();
        let api: Api<DynamicObject> = Api::namespaced_with(client(&server), "typed", &probe_resource());
        let model = |name: &str, interval: &str, targets: ProbeTargets| Probe {
            api_version: Some("monitoring.coreos.com/v1".to_owned()),
            kind: Some("Probe".to_owned()),
            metadata: Some(GeneratedMeta { name: Some(name.to_owned()), ..GeneratedMeta::default() }),
            spec: Some(ProbeSpec {
                prober: Some(ProbeProber {
                    url: Some("blackbox-exporter.monitoring.svc:9115".to_owned()),
                    ..ProbeProber::default()
                }),
                module: Some("http_2xx".to_owned()),
                interval: Some(interval.to_owned()),
                targets: Some(targets),
                ..ProbeSpec::default()
            }),
        };
        let static_targets = ProbeTargets {
            static_config: Some(ProbeStaticConfig {
                static_: Some(vec!["https://example.com".to_owned()]),
                ..ProbeStaticConfig::default()
            }),
            ..ProbeTargets::default()
        };
        let as_dynamic = |probe: &Probe| -> DynamicObject {
            serde_json::from_value(serde_json::to_value(probe).expect("serialize")).expect("a Probe is a DynamicObject")
        };

        let valid = model("typed", "1m30s", static_targets);
        assert!(kube_apigen::Validate::validate(&valid).is_empty());
        let written = as_dynamic(&valid);
        // `Default` is what decoding `{}` gives: the spec's defaults included.
        assert_eq!(written.data["spec"]["prober"]["path"], "/probe", "the model's default is the spec's");
        let created = api.create(&PostParams::default(), &written).await.expect("create");
        let back = typed(&created);
        assert_eq!(back.spec, valid.spec, "what was sent");

        // Both rules broken: the generated validation and the server agree.
        let invalid = model("typed-invalid", "30sec", ProbeTargets::default());
        let errors = kube_apigen::Validate::validate(&invalid);
        let predicted = kube_apigen::Status::invalid("Probe", "monitoring.coreos.com", "typed-invalid", &errors);
        let status = api_error(api.create(&PostParams::default(), &as_dynamic(&invalid)).await);
        let predicted: Status = serde_json::from_value(serde_json::to_value(&predicted).expect("serialize"))
            .expect("the runtime's Status is kube's");
        assert_eq!(status, predicted, "the server's 422 is the generated validation's");
        assert_eq!(status.code, 422, "{status:?}");
        assert_eq!(status.details.map(|d| d.causes.len()), Some(2));
    }

    async fn probe_server_side_apply_and_conflicts() {
        let server = start();
        let api: Api<DynamicObject> = Api::namespaced_with(client(&server), "ssa", &probe_resource());
        let name = "blackbox-http";
        let operator = PatchParams::apply("probe-operator");
        // The configuration has no `spec.prober.path`: the default is not the operator's.
        let config = serde_json::to_value(probe(name)).expect("configuration");

        let created = api.patch(name, &operator, &Patch::Apply(&config)).await.expect("apply creates");
        assert_eq!(created.metadata.namespace.as_deref(), Some("ssa"));
        assert_eq!(created.metadata.generation, Some(1));
        assert_eq!(created.data["spec"], probe_fixture()["spec"], "defaulted");
        assert_eq!(typed_path(&created).as_deref(), Some("/probe"));
        assert_eq!(managers(&created), [("probe-operator".to_owned(), "Apply".to_owned())]);
        assert_eq!(api.get(name).await.expect("get"), created);
        let same = api.patch(name, &operator, &Patch::Apply(&config)).await.expect("apply again");
        assert_eq!(same, created, "a no-op apply writes nothing");

        // A changed configuration: another interval, one target fewer.
        let mut config = config;
        config["spec"]["interval"] = json!("60s");
        config["spec"]["targets"]["staticConfig"]["static"] = json!(["https://example.com"]);
        let changed = api.patch(name, &operator, &Patch::Apply(&config)).await.expect("apply a change");
        assert_eq!(changed.data["spec"]["interval"], "60s");
        assert_eq!(changed.data["spec"]["targets"]["staticConfig"]["static"], json!(["https://example.com"]));
        assert_eq!(changed.data["spec"]["prober"]["path"], "/probe");
        assert_eq!(changed.uid(), created.uid());
        assert!(rv(&changed) > rv(&created));
        assert_eq!(changed.metadata.generation, Some(2));

        // Another manager applies `spec.module`, which the operator owns with another value.
        let module_only = json!({
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "Probe",
            "metadata": {"name": name},
            "spec": {"module": "http_post_2xx"},
        });
        let status = api_error(api.patch(name, &PatchParams::apply("oncall"), &Patch::Apply(&module_only)).await);
        assert_status(
            &status,
            409,
            "Conflict",
            r#"Apply failed with 1 conflict: conflict with "probe-operator": .spec.module"#,
        );
        assert_eq!(
            status.details.expect("details").causes,
            [cause("FieldManagerConflict", r#"conflict with "probe-operator""#, ".spec.module")]
        );
        assert_eq!(api.get(name).await.expect("get"), changed, "nothing written");
        let forced = api
            .patch(name, &PatchParams::apply("oncall").force(), &Patch::Apply(&module_only))
            .await
            .expect("forced apply");
        assert_eq!(forced.data["spec"]["module"], "http_post_2xx");
        assert_eq!(forced.data["spec"]["interval"], "60s", "the operator's fields stay");
        // Entries sort by operation, time (seconds), then manager, as in Kubernetes.
        let mut forced_managers = managers(&forced);
        forced_managers.sort();
        assert_eq!(
            forced_managers,
            [("oncall".to_owned(), "Apply".to_owned()), ("probe-operator".to_owned(), "Apply".to_owned())]
        );

        // Now the operator's old module conflicts with "oncall"; once the operator stops
        // applying the module, oncall's value stays.
        let status = api_error(api.patch(name, &operator, &Patch::Apply(&config)).await);
        assert_status(&status, 409, "Conflict", r#"Apply failed with 1 conflict: conflict with "oncall": .spec.module"#);
        config["spec"].as_object_mut().expect("spec").remove("module");
        let released = api.patch(name, &operator, &Patch::Apply(&config)).await.expect("apply without module");
        assert_eq!(released.data["spec"]["module"], "http_post_2xx");

        // A field changed by an update (a merge patch with its own field manager) moves to
        // that manager: the operator's next apply conflicts with it until forced.
        let edited = api
            .patch(
                name,
                &PatchParams { field_manager: Some("kubectl-edit".to_owned()), ..PatchParams::default() },
                &Patch::Merge(json!({"spec": {"scrapeTimeout": "15s"}})),
            )
            .await
            .expect("merge patch by kubectl-edit");
        assert_eq!(edited.data["spec"]["scrapeTimeout"], "15s");
        assert!(managers(&edited).contains(&("kubectl-edit".to_owned(), "Update".to_owned())), "{:?}", managers(&edited));
        let status = api_error(api.patch(name, &operator, &Patch::Apply(&config)).await);
        assert_status(
            &status,
            409,
            "Conflict",
            r#"Apply failed with 1 conflict: conflict with "kubectl-edit" using monitoring.coreos.com/v1: .spec.scrapeTimeout"#,
        );
        let taken =
            api.patch(name, &operator.clone().force(), &Patch::Apply(&config)).await.expect("forced apply by the operator");
        assert_eq!(taken.data["spec"]["scrapeTimeout"], "10s");
        assert_eq!(typed_path(&taken).as_deref(), Some("/probe"));
    }


    /// A raw watch sees ADDED, MODIFIED and DELETED, in order, and kube-runtime's watcher the
    /// same writes as Apply and Delete.
    async fn probe_watch_sees_added_modified_deleted_in_order() {
        let server = start();
        let client = client(&server);
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "watched", &probe_resource());
        let noise: Api<DynamicObject> = Api::namespaced_with(client, "elsewhere", &probe_resource());
        let pp = PostParams::default();
        let pre = api.create(&pp, &probe("pre")).await.expect("create pre");

        let mut stream = watcher::watcher(api.clone(), watcher::Config::default()).boxed();
        assert!(matches!(next_event(&mut stream, "Init").await, Event::Init));
        match next_event(&mut stream, "InitApply(pre)").await {
            Event::InitApply(object) => assert_eq!(object, pre),
            other => panic!("expected InitApply(pre), got {other:?}"),
        }
        assert!(matches!(next_event(&mut stream, "InitDone").await, Event::InitDone));
        let listed = api.list(&ListParams::default()).await.expect("list");
        let from = listed.metadata.resource_version.expect("list resourceVersion");
        let mut raw = api.watch(&WatchParams::default().timeout(60), &from).await.expect("watch").boxed();

        let a1 = api.create(&pp, &probe("a")).await.expect("create a");
        noise.create(&pp, &probe("noise")).await.expect("create noise");
        let mut a1_changed = a1.clone();
        a1_changed.data["spec"]["interval"] = json!("60s");
        let a2 = api.replace("a", &pp, &a1_changed).await.expect("replace a");
        let a3 = api
            .patch("a", &PatchParams::default(), &Patch::Merge(json!({"spec": {"module": "tcp_connect"}})))
            .await
            .expect("merge-patch a");
        api.delete("a", &DeleteParams::default()).await.expect("delete a");

        // The raw watch: the event types.
        match next_watch_event(&mut raw, "ADDED a").await {
            WatchEvent::Added(object) => assert_eq!(object, a1),
            other => panic!("expected ADDED a, got {other:?}"),
        }
        for (written, what) in [(&a2, "MODIFIED a (replace)"), (&a3, "MODIFIED a (patch)")] {
            match next_watch_event(&mut raw, what).await {
                WatchEvent::Modified(object) => assert_eq!(&object, written, "{what}"),
                other => panic!("expected {what}, got {other:?}"),
            }
        }
        match next_watch_event(&mut raw, "DELETED a").await {
            WatchEvent::Deleted(object) => {
                assert_eq!(object.uid(), a1.uid());
                assert_eq!(object.data, a3.data, "the last state");
                assert!(rv(&object) > rv(&a3), "a resourceVersion of its own");
                assert_eq!(typed_path(&object).as_deref(), Some("/probe"));
            }
            other => panic!("expected DELETED a, got {other:?}"),
        }

        // The watcher: the same writes.
        for (written, what) in [(&a1, "create a"), (&a2, "replace a"), (&a3, "merge-patch a")] {
            match next_event(&mut stream, what).await {
                Event::Apply(object) => {
                    assert_eq!(&object, written, "{what}");
                    assert_eq!(typed_path(&object).as_deref(), Some("/probe"));
                }
                other => panic!("{what}: expected Apply, got {other:?}"),
            }
        }
        match next_event(&mut stream, "delete a").await {
            Event::Delete(object) => {
                assert_eq!(object.uid(), a1.uid());
                assert!(rv(&object) > rv(&a3));
            }
            other => panic!("delete a: expected Delete, got {other:?}"),
        }
        if let Ok(extra) = tokio::time::timeout(Duration::from_millis(300), stream.next()).await {
            panic!("unexpected extra watcher item: {extra:?}");
        }
    }

    async fn invalid_probes_are_422_with_the_causes() {
        let server = start();
        let api: Api<DynamicObject> = Api::namespaced_with(client(&server), "invalid", &probe_resource());
        let pp = PostParams::default();
        let cel = r#"Invalid value: "object": targets must set staticConfig or ingress"#;
        let pattern = format!(r#"Invalid value: "30sec": spec.interval in body should match '{DURATION_PATTERN}'"#);
        #[track_caller]
        fn check(status: Status, name: &str, message: &str, causes: &[StatusCause]) {
            assert_status(
                &status,
                422,
                "Invalid",
                &format!(r#"Probe.monitoring.coreos.com "{name}" is invalid: {message}"#),
            );
            let details = status.details.expect("details");
            assert_eq!(
                (details.name.as_str(), details.group.as_str(), details.kind.as_str()),
                (name, "monitoring.coreos.com", "Probe")
            );
            assert_eq!(details.causes, causes);
        }

        // The CEL rule of `spec` (fieldPath `.targets`): targets with neither kind.
        let mut no_targets = probe("no-targets");
        no_targets.data["spec"]["targets"] = json!({});
        check(
            api_error(api.create(&pp, &no_targets).await),
            "no-targets",
            &format!("spec.targets: {cel}"),
            &[cause("FieldValueInvalid", cel, "spec.targets")],
        );
        // The pattern of `spec.interval`.
        let mut bad_interval = probe("bad-interval");
        bad_interval.data["spec"]["interval"] = json!("30sec");
        check(
            api_error(api.create(&pp, &bad_interval).await),
            "bad-interval",
            &format!("spec.interval: {pattern}"),
            &[cause("FieldValueInvalid", &pattern, "spec.interval")],
        );
        // Both: every error, the schema's before the CEL rule's.
        let mut both = bad_interval.clone();
        both.metadata.name = Some("both".to_owned());
        both.data["spec"]["targets"] = json!({});
        check(
            api_error(api.create(&pp, &both).await),
            "both",
            &format!("[spec.interval: {pattern}, spec.targets: {cel}]"),
            &[cause("FieldValueInvalid", &pattern, "spec.interval"), cause("FieldValueInvalid", cel, "spec.targets")],
        );
        // Server-side apply of a new invalid object.
        check(
            api_error(api.patch("both", &PatchParams::apply("probe-operator"), &Patch::Apply(&both)).await),
            "both",
            &format!("[spec.interval: {pattern}, spec.targets: {cel}]"),
            &[cause("FieldValueInvalid", &pattern, "spec.interval"), cause("FieldValueInvalid", cel, "spec.targets")],
        );

        // Updates that break a valid Probe: a merge patch, a replace.
        let valid = api.create(&pp, &probe("valid")).await.expect("create valid");
        check(
            api_error(
                api.patch("valid", &PatchParams::default(), &Patch::Merge(json!({"spec": {"interval": "30sec"}}))).await,
            ),
            "valid",
            &format!("spec.interval: {pattern}"),
            &[cause("FieldValueInvalid", &pattern, "spec.interval")],
        );
        let mut emptied = valid.clone();
        emptied.data["spec"]["targets"] = json!({});
        check(
            api_error(api.replace("valid", &pp, &emptied).await),
            "valid",
            &format!("spec.targets: {cel}"),
            &[cause("FieldValueInvalid", cel, "spec.targets")],
        );

        // Nothing invalid was written.
        assert_eq!(api.get("valid").await.expect("get"), valid);
        assert_eq!(names(&api.list(&ListParams::default()).await.expect("list").items), ["valid"]);
    }

    async fn discovery_finds_probes() {
        let server = start();
        let client = client(&server);
        let discovery =
            Discovery::new(client.clone()).filter(&["monitoring.coreos.com"]).run().await.expect("discovery of /apis");
        let group = discovery.get("monitoring.coreos.com").expect("monitoring.coreos.com discovered");
        assert_eq!(group.versions().collect::<Vec<_>>(), ["v1"]);
        assert_eq!(group.preferred_version(), Some("v1"));
        let (resource, caps) = discovery.resolve_gvk(&probe_gvk()).expect("Probe discovered");
        assert_eq!(resource, probe_resource());
        assert_eq!(caps.scope, Scope::Namespaced);
        for verb in [
            verbs::CREATE,
            verbs::GET,
            verbs::LIST,
            verbs::WATCH,
            verbs::UPDATE,
            verbs::PATCH,
            verbs::DELETE,
            verbs::DELETE_COLLECTION,
        ] {
            assert!(caps.supports_operation(verb), "Probe verb {verb}");
        }
        assert!(caps.subresources.is_empty(), "no status or scale");
        // A manifest's apiVersion and kind are all a generic client needs.
        let manifest = probe("from-discovery");
        let (from_manifest, _) = discovery.resolve_object(&manifest).expect("the manifest's resource");
        assert_eq!(from_manifest, resource);
        let (pinned, pinned_caps) = pinned_kind(&client, &probe_gvk()).await.expect("pinned_kind");
        assert_eq!(pinned, resource);
        assert_eq!(pinned_caps.scope, Scope::Namespaced);
        let one_group = kube::discovery::group(&client, "monitoring.coreos.com").await.expect("discovery of one group");
        let (recommended, _) = one_group.recommended_kind("Probe").expect("Probe in its group");
        assert_eq!(recommended, resource);

        // kube's ApiResource has no short names or categories; the APIResourceList has.
        let list =
            client.list_api_group_resources("monitoring.coreos.com/v1").await.expect("/apis/monitoring.coreos.com/v1");
        assert_eq!(list.group_version, "monitoring.coreos.com/v1");
        assert_eq!(list.resources.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["probes"], "no subresources");
        let probes = &list.resources[0];
        assert_eq!((probes.kind.as_str(), probes.singular_name.as_str(), probes.namespaced), ("Probe", "probe", true));
        assert_eq!(probes.short_names, Some(vec!["prb".to_owned()]));
        assert_eq!(probes.categories, Some(vec!["prometheus-operator".to_owned()]));

        // Aggregated discovery (`apidiscovery.k8s.io/v2`): one request to `/apis`, the same
        // answers.
        let aggregated = Discovery::new(client.clone())
            .filter(&["monitoring.coreos.com"])
            .run_aggregated()
            .await
            .expect("aggregated discovery of /apis");
        let group = aggregated.get("monitoring.coreos.com").expect("monitoring.coreos.com in aggregated discovery");
        assert_eq!(group.versions().collect::<Vec<_>>(), ["v1"]);
        assert_eq!(group.preferred_version(), Some("v1"));
        let (from_aggregated, aggregated_caps) =
            aggregated.resolve_gvk(&probe_gvk()).expect("Probe in aggregated discovery");
        assert_eq!(from_aggregated, resource);
        assert_eq!(aggregated_caps.scope, Scope::Namespaced);
        assert_eq!(aggregated_caps.operations, caps.operations);
        assert!(aggregated_caps.subresources.is_empty(), "no status or scale");
        assert!(!aggregated.has_group(""), "the core group is filtered out");

        // kube's capabilities have no short names or categories; the aggregated document has.
        let document = client.list_api_groups_aggregated().await.expect("aggregated /apis");
        let monitoring = document
            .items
            .iter()
            .find(|group| group.metadata.as_ref().and_then(|meta| meta.name.as_deref()) == Some("monitoring.coreos.com"))
            .expect("monitoring.coreos.com in the aggregated /apis");
        let [v1] = monitoring.versions.as_slice() else {
            panic!("one version: {monitoring:#?}");
        };
        assert_eq!(v1.version.as_deref(), Some("v1"));
        assert_eq!(v1.freshness.as_deref(), Some("Current"));
        let [probes] = v1.resources.as_slice() else {
            panic!("one resource: {v1:#?}");
        };
        assert_eq!(probes.resource.as_deref(), Some("probes"));
        assert_eq!(probes.singular_resource.as_deref(), Some("probe"));
        assert_eq!(probes.scope.as_deref(), Some("Namespaced"));
        let kind = probes.response_kind.as_ref().expect("responseKind");
        assert_eq!(
            (kind.group.as_deref(), kind.version.as_deref(), kind.kind.as_deref()),
            (Some("monitoring.coreos.com"), Some("v1"), Some("Probe"))
        );
        assert_eq!(probes.short_names, ["prb"]);
        assert_eq!(probes.categories, ["prometheus-operator"]);
        assert!(probes.subresources.is_empty(), "no status or scale");

        // Unfiltered, `/api` is asked too: it lists the core group's v1, and the groups of
        // `/apis` are all there, as the per-group-version documents describe them.
        let core = client.list_core_api_versions_aggregated().await.expect("aggregated /api");
        let versions: Vec<Option<&str>> =
            core.items.iter().flat_map(|group| &group.versions).map(|v| v.version.as_deref()).collect();
        assert_eq!(versions, [Some("v1")], "{core:#?}");
        let everything =
            Discovery::new(client.clone()).run_aggregated().await.expect("aggregated discovery of /api and /apis");
        let plain = Discovery::new(client.clone())
            .run()
            .await
            .expect("discovery of /api and /apis, group-version by group-version");
        let names = |discovery: &Discovery| -> Vec<String> {
            discovery.groups_alphabetical().iter().map(|group| group.name().to_owned()).collect()
        };
        assert_eq!(
            names(&everything),
            [
                "",
                "apiextensions.k8s.io",
                "apps",
                "authentication.k8s.io",
                "authorization.k8s.io",
                "autoscaling",
                "certificates.k8s.io",
                "coordination.k8s.io",
                "discovery.k8s.io",
                "events.k8s.io",
                "monitoring.coreos.com",
                "rbac.authorization.k8s.io"
            ]
        );
        assert_eq!(names(&everything), names(&plain));
        for group in plain.groups() {
            let from_aggregated = everything.get(group.name()).expect("the same groups");
            assert_eq!(
                format!("{:?}", from_aggregated.recommended_resources()),
                format!("{:?}", group.recommended_resources()),
                "{}",
                group.name()
            );
        }
        let (hpa, hpa_caps) = everything
            .resolve_gvk(&GroupVersionKind::gvk("autoscaling", "v2", "HorizontalPodAutoscaler"))
            .expect("HorizontalPodAutoscaler in aggregated discovery");
        assert_eq!(hpa.plural, "horizontalpodautoscalers");
        assert_eq!(hpa_caps.subresources.iter().map(|(sub, _)| sub.plural.as_str()).collect::<Vec<_>>(), ["status"]);

        // The discovered resource drives the dynamic client.
        let api: Api<DynamicObject> = Api::namespaced_with(client, "discovered", &resource);
        let created = api.create(&PostParams::default(), &manifest).await.expect("create");
        assert_eq!(created.data["spec"]["prober"]["path"], "/probe");
        let listed = api.list(&ListParams::default()).await.expect("list");
        assert_eq!(listed.items, [created]);
    }
}
