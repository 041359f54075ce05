//! The reference server as a real Kubernetes client sees it: the `kube` crate (client and
//! runtime) with k8s-openapi's types, over plain HTTP on loopback.
//!
//! Every test starts its own server process (`apiserver --listen 127.0.0.1:0`) and stops it
//! with SIGTERM when done. Expected error texts are the API server's own, word for word:
//! kubectl and controllers print them as they are.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use k8s_openapi::ByteString;
use k8s_openapi::api::autoscaling::v2::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, MetricSpec,
    MetricTarget, ResourceMetricSource,
};
use k8s_openapi::api::certificates::v1::{
    CertificateSigningRequest, CertificateSigningRequestSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, ResourceExt,
};
use kube::core::response::StatusCause;
use kube::core::{GroupVersionKind, Status};
use kube::discovery::{Discovery, Scope, verbs};
use kube::runtime::watcher::{self, Event};
use kube::{Client, Config};
use serde_json::json;

// ---- The server under test ----

/// The reference server as a child process on a free loopback port; SIGTERM on drop.
struct TestServer {
    child: Child,
    url: String,
}

impl TestServer {
    fn start() -> TestServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_apiserver"))
            .args(["--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting the apiserver binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        // Keeps draining stdout after the first line so that the server never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.trim().strip_prefix("listening on ") {
                    let _ = tx.send(url.to_owned());
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => TestServer { child, url },
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("apiserver did not print `listening on http://...` within 30 s");
            }
        }
    }

    fn client(&self) -> Client {
        let config = Config::new(self.url.parse().expect("the printed URL is a URI"));
        assert_eq!(config.default_namespace, "default");
        Client::try_from(config).expect("a kube client for plain HTTP")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) with the pid of our own child process, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    let text = object
        .resource_version()
        .unwrap_or_else(|| panic!("{} has no resourceVersion", object.name_any()));
    text.parse()
        .unwrap_or_else(|_| panic!("resourceVersion {text:?} is not a number"))
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
    assert_eq!(
        (status.code, status.reason.as_str(), status.message.as_str()),
        (code, reason, message),
        "{status:#?}"
    );
    assert!(
        status.is_failure(),
        "status: Failure expected in {status:#?}"
    );
}

fn cause(reason: &str, message: &str, field: &str) -> StatusCause {
    StatusCause {
        reason: reason.to_owned(),
        message: message.to_owned(),
        field: field.to_owned(),
    }
}

/// The next event of a watcher, failing after 10 s.
async fn next_event<S>(stream: &mut S, waiting_for: &str) -> Event<HorizontalPodAutoscaler>
where
    S: Stream<Item = Result<Event<HorizontalPodAutoscaler>, watcher::Error>> + Unpin,
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hpa_create_get_replace_delete() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::default_namespaced(server.client());
    let pp = PostParams::default();

    let created = api.create(&pp, &hpa("web", 5)).await.expect("create");
    assert_eq!(created.metadata.name.as_deref(), Some("web"));
    assert_eq!(created.metadata.namespace.as_deref(), Some("default"));
    assert!(
        created
            .metadata
            .uid
            .as_deref()
            .is_some_and(|u| !u.is_empty()),
        "uid set"
    );
    assert!(
        created.metadata.creation_timestamp.is_some(),
        "creationTimestamp set"
    );
    assert_eq!(created.labels().get("app").map(String::as_str), Some("web"));
    assert_eq!(created.spec, hpa("web", 5).spec);
    let created_rv = rv(&created);

    let got = api.get("web").await.expect("get");
    assert_eq!(got, created, "get returns what create returned");

    let mut changed = got.clone();
    changed.spec.max_replicas = 10;
    let replaced = api.replace("web", &pp, &changed).await.expect("replace");
    assert_eq!(replaced.spec.max_replicas, 10);
    assert!(
        rv(&replaced) > created_rv,
        "replace moves the resourceVersion forward"
    );
    assert_eq!(replaced.metadata.uid, created.metadata.uid);
    assert_eq!(
        replaced.metadata.creation_timestamp,
        created.metadata.creation_timestamp
    );
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
    assert_status(
        &duplicate,
        409,
        "AlreadyExists",
        r#"horizontalpodautoscalers.autoscaling "web" already exists"#,
    );

    // The API server answers the deleted object or a Success Status.
    let deleted = api
        .delete("web", &DeleteParams::default())
        .await
        .expect("delete");
    if let Some(object) = deleted.as_ref().left() {
        assert_eq!(
            object.metadata.uid, created.metadata.uid,
            "the deleted object"
        );
    }
    if let Some(status) = deleted.as_ref().right() {
        assert!(status.is_success(), "{status:?}");
    }
    let missing = api_error(api.get("web").await);
    assert_status(
        &missing,
        404,
        "NotFound",
        r#"horizontalpodautoscalers.autoscaling "web" not found"#,
    );
    let details = missing.details.as_ref().expect("NotFound details");
    assert_eq!(
        (
            details.name.as_str(),
            details.group.as_str(),
            details.kind.as_str()
        ),
        ("web", "autoscaling", "horizontalpodautoscalers")
    );
    let again = api_error(api.delete("web", &DeleteParams::default()).await);
    assert_eq!(
        (again.code, again.reason.as_str()),
        (404, "NotFound"),
        "{again:?}"
    );
    assert!(
        api.list(&ListParams::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_pages_with_limit_and_continue() {
    let server = TestServer::start();
    let client = server.client();
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
    other
        .create(&pp, &hpa("hpa-x", 3))
        .await
        .expect("create elsewhere");

    let mut seen = Vec::new();
    let mut pages = Vec::new();
    let mut params = ListParams::default().limit(2);
    loop {
        let page = api.list(&params).await.expect("list page");
        assert!(
            page.items.len() <= 2,
            "a page of {} items despite limit=2",
            page.items.len()
        );
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
    assert_eq!(
        sorted.len(),
        seen.len(),
        "an object was listed twice: {seen:?}"
    );
    assert_eq!(sorted, expected, "every object exactly once");
}

/// A continued list is a snapshot: the API server serves every page at the resourceVersion
/// of the first, so writes between pages neither add nor remove items.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continued_list_pages_are_a_consistent_snapshot() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "snapshot");
    let pp = PostParams::default();
    for i in 0..5 {
        api.create(&pp, &hpa(&format!("hpa-{i}"), 3))
            .await
            .expect("create");
    }
    let first = api
        .list(&ListParams::default().limit(2))
        .await
        .expect("first page");
    let token = first
        .metadata
        .continue_
        .clone()
        .expect("a continue token after 2 of 5");
    let snapshot_rv = first
        .metadata
        .resource_version
        .clone()
        .expect("list resourceVersion");
    // Between pages: a new object that sorts last and the deletion of one not yet listed.
    api.create(&pp, &hpa("hpa-9", 3))
        .await
        .expect("create between pages");
    api.delete("hpa-4", &DeleteParams::default())
        .await
        .expect("delete between pages");

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
            Some(token) if !token.is_empty() => {
                params = ListParams::default().limit(2).continue_token(token)
            }
            _ => break,
        }
    }
    assert_eq!(names, ["hpa-0", "hpa-1", "hpa-2", "hpa-3", "hpa-4"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_sees_every_write_in_order() {
    let server = TestServer::start();
    let client = server.client();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "watched");
    let noise: Api<HorizontalPodAutoscaler> = Api::namespaced(client, "elsewhere");
    let pp = PostParams::default();
    let pre = api.create(&pp, &hpa("pre", 3)).await.expect("create pre");
    let mut noisy = noise
        .create(&pp, &hpa("noise", 3))
        .await
        .expect("create noise");

    // The default configuration: list (pages of 500) then watch from the list's
    // resourceVersion with allowWatchBookmarks=true.
    let mut stream = watcher::watcher(api.clone(), watcher::Config::default()).boxed();
    assert!(matches!(next_event(&mut stream, "Init").await, Event::Init));
    match next_event(&mut stream, "InitApply(pre)").await {
        Event::InitApply(object) => assert_eq!(object, pre),
        other => panic!("expected InitApply(pre), got {other:?}"),
    }
    assert!(matches!(
        next_event(&mut stream, "InitDone").await,
        Event::InitDone
    ));

    let mut last_rv = rv(&pre);
    let mut expect_apply =
        async |stream: &mut _, written: &HorizontalPodAutoscaler, what: &str| match next_event(
            stream, what,
        )
        .await
        {
            Event::Apply(object) => {
                assert_eq!(
                    &object, written,
                    "{what}: the event carries the written object"
                );
                assert!(
                    rv(&object) > last_rv,
                    "{what}: resourceVersion goes forward"
                );
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
    noise
        .replace("noise", &pp, &noisy)
        .await
        .expect("replace noise");
    let mut a1_changed = a1.clone();
    a1_changed.spec.max_replicas = 6;
    let a2 = api.replace("a", &pp, &a1_changed).await.expect("replace a");
    expect_apply(&mut stream, &a2, "replace a").await;
    let a3 = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"maxReplicas": 7}})),
        )
        .await
        .expect("merge-patch a");
    assert_eq!(a3.spec.max_replicas, 7);
    expect_apply(&mut stream, &a3, "merge-patch a").await;

    let mut last_rv_after_deletes = last_rv;
    for (name, uid) in [("b", b1.uid()), ("pre", pre.uid())] {
        api.delete(name, &DeleteParams::default())
            .await
            .expect("delete");
        match next_event(&mut stream, &format!("delete {name}")).await {
            Event::Delete(object) => {
                assert_eq!((object.name_any(), object.uid()), (name.to_owned(), uid));
                assert!(
                    rv(&object) > last_rv_after_deletes,
                    "delete {name}: RV goes forward"
                );
                last_rv_after_deletes = rv(&object);
            }
            other => panic!("delete {name}: expected Delete, got {other:?}"),
        }
    }
    let deleted_rv = last_rv_after_deletes;
    let a4 = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"step": "4"}}})),
        )
        .await
        .expect("label a");
    assert!(rv(&a4) > deleted_rv);
    match next_event(&mut stream, "label a").await {
        Event::Apply(object) => assert_eq!(object, a4),
        other => panic!("label a: expected Apply, got {other:?}"),
    }
    api.delete("a", &DeleteParams::default())
        .await
        .expect("delete a");
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
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_with_streaming_list() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "streamed");
    let pp = PostParams::default();
    let pre = api.create(&pp, &hpa("pre", 3)).await.expect("create pre");
    let mut stream =
        watcher::watcher(api.clone(), watcher::Config::default().streaming_lists()).boxed();
    assert!(matches!(next_event(&mut stream, "Init").await, Event::Init));
    match next_event(&mut stream, "InitApply(pre)").await {
        Event::InitApply(object) => assert_eq!(object, pre),
        other => panic!("expected InitApply(pre), got {other:?}"),
    }
    assert!(matches!(
        next_event(&mut stream, "InitDone").await,
        Event::InitDone
    ));
    let a = api.create(&pp, &hpa("a", 4)).await.expect("create a");
    match next_event(&mut stream, "create a").await {
        Event::Apply(object) => assert_eq!(object, a),
        other => panic!("expected Apply(a), got {other:?}"),
    }
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_creates_then_changes() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "ssa");
    let mgr = PatchParams::apply("mgr");

    let created = api
        .patch("web", &mgr, &Patch::Apply(applied("web", 2, 5)))
        .await
        .expect("apply");
    assert_eq!(created.metadata.namespace.as_deref(), Some("ssa"));
    assert_eq!(
        (created.spec.min_replicas, created.spec.max_replicas),
        (Some(2), 5)
    );
    assert_eq!(created.labels().get("team").map(String::as_str), Some("a"));
    assert_eq!(api.get("web").await.expect("get"), created);

    // Another manager's field, set with a merge patch, survives the next apply.
    api.patch(
        "web",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {"owner": "other"}}})),
    )
    .await
    .expect("merge-patch an annotation");

    let changed = api
        .patch("web", &mgr, &Patch::Apply(applied("web", 2, 8)))
        .await
        .expect("re-apply");
    assert_eq!(changed.spec.max_replicas, 8);
    assert_eq!(changed.uid(), created.uid());
    assert!(rv(&changed) > rv(&created));
    assert_eq!(
        changed.annotations().get("owner").map(String::as_str),
        Some("other")
    );
    assert_eq!(api.get("web").await.expect("get"), changed);

    // Applying the same configuration again changes nothing.
    let same = api
        .patch("web", &mgr, &Patch::Apply(applied("web", 2, 8)))
        .await
        .expect("no-op");
    assert_eq!(same, changed, "a no-op apply writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_422_carries_the_causes() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "ssa");
    let mgr = PatchParams::apply("mgr");
    api.patch("web", &mgr, &Patch::Apply(applied("web", 2, 5)))
        .await
        .expect("apply");

    // A CEL rule of the spec: maxReplicas >= minReplicas.
    let status = api_error(
        api.patch("web", &mgr, &Patch::Apply(applied("web", 3, 2)))
            .await,
    );
    assert_status(
        &status,
        422,
        "Invalid",
        r#"HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.maxReplicas: Invalid value: "object": maxReplicas must be greater than or equal to minReplicas"#,
    );
    let details = status.details.expect("details");
    assert_eq!(
        (
            details.name.as_str(),
            details.group.as_str(),
            details.kind.as_str()
        ),
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
    let status = api_error(
        api.patch("new", &mgr, &Patch::Apply(applied("new", 0, 0)))
            .await,
    );
    assert_status(
        &status,
        422,
        "Invalid",
        r#"HorizontalPodAutoscaler.autoscaling "new" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than or equal to 1, spec.minReplicas: Invalid value: 0: must be greater than or equal to 1]"#,
    );
    assert_eq!(
        status.details.expect("details").causes,
        [
            cause(
                "FieldValueInvalid",
                "Invalid value: 0: must be greater than or equal to 1",
                "spec.maxReplicas"
            ),
            cause(
                "FieldValueInvalid",
                "Invalid value: 0: must be greater than or equal to 1",
                "spec.minReplicas"
            ),
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
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_tracks_field_ownership() {
    let server = TestServer::start();
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(server.client(), "ssa");
    let created = api
        .patch(
            "web",
            &PatchParams::apply("mgr"),
            &Patch::Apply(applied("web", 2, 5)),
        )
        .await
        .expect("apply");
    let managers: Vec<(&str, &str)> = created
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| {
            (
                m.manager.as_deref().unwrap_or(""),
                m.operation.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(managers, [("mgr", "Apply")], "managedFields");

    // "other" applies only maxReplicas, which "mgr" owns with another value.
    let only_max = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"maxReplicas": 7},
    });
    let status = api_error(
        api.patch(
            "web",
            &PatchParams::apply("other"),
            &Patch::Apply(&only_max),
        )
        .await,
    );
    assert_status(
        &status,
        409,
        "Conflict",
        r#"Apply failed with 1 conflict: conflict with "mgr": .spec.maxReplicas"#,
    );
    let forced = api
        .patch(
            "web",
            &PatchParams::apply("other").force(),
            &Patch::Apply(&only_max),
        )
        .await
        .expect("forced apply");
    assert_eq!(forced.spec.max_replicas, 7);
    assert_eq!(forced.spec.min_replicas, Some(2), "mgr's other fields stay");

    // "mgr" stops applying minReplicas and its label, which it alone owns: both are
    // removed. It applies maxReplicas with the value "other" set: shared, no conflict.
    let mut without = applied("web", 2, 7);
    without["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("minReplicas");
    without["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("labels");
    let dropped = api
        .patch("web", &PatchParams::apply("mgr"), &Patch::Apply(without))
        .await
        .expect("apply without minReplicas");
    assert_eq!(dropped.spec.max_replicas, 7);
    assert_eq!(dropped.spec.min_replicas, None, "minReplicas removed");
    assert!(dropped.labels().get("team").is_none(), "label removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csr_create_and_get_with_a_pem_request() {
    let server = TestServer::start();
    let api: Api<CertificateSigningRequest> = Api::all(server.client());
    let csr = CertificateSigningRequest {
        metadata: ObjectMeta {
            name: Some("node-csr-worker-1".to_owned()),
            ..ObjectMeta::default()
        },
        spec: CertificateSigningRequestSpec {
            request: ByteString(PEM_REQUEST.as_bytes().to_vec()),
            signer_name: "kubernetes.io/kube-apiserver-client-kubelet".to_owned(),
            expiration_seconds: Some(86_400),
            usages: Some(vec![
                "digital signature".to_owned(),
                "client auth".to_owned(),
            ]),
            ..CertificateSigningRequestSpec::default()
        },
        status: None,
    };
    let created = api
        .create(&PostParams::default(), &csr)
        .await
        .expect("create CSR");
    assert_eq!(created.metadata.name.as_deref(), Some("node-csr-worker-1"));
    assert_eq!(created.metadata.namespace, None, "cluster-scoped");
    assert!(created.metadata.uid.is_some());
    rv(&created);
    assert_eq!(
        created.spec.request.0,
        PEM_REQUEST.as_bytes(),
        "the PEM request round-trips"
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_finds_both_resources() {
    let server = TestServer::start();
    let client = server.client();
    let version = client.apiserver_version().await.expect("/version");
    let expected = &generated::server::CATALOG.version;
    assert_eq!(
        (
            version.major.as_str(),
            version.minor.as_str(),
            version.git_version.as_str()
        ),
        (expected.major, expected.minor, expected.git_version)
    );

    let discovery = Discovery::new(client.clone())
        .filter(&["autoscaling", "certificates.k8s.io"])
        .run()
        .await
        .expect("discovery of /apis");
    let (hpa_resource, hpa_caps) = discovery
        .resolve_gvk(&GroupVersionKind::gvk(
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
        ))
        .expect("HorizontalPodAutoscaler discovered");
    assert_eq!(hpa_resource.plural, "horizontalpodautoscalers");
    assert_eq!(hpa_caps.scope, Scope::Namespaced);
    for verb in [
        verbs::CREATE,
        verbs::GET,
        verbs::LIST,
        verbs::WATCH,
        verbs::PATCH,
        verbs::DELETE,
    ] {
        assert!(hpa_caps.supports_operation(verb), "HPA verb {verb}");
    }
    let (csr_resource, csr_caps) = discovery
        .resolve_gvk(&GroupVersionKind::gvk(
            "certificates.k8s.io",
            "v1",
            "CertificateSigningRequest",
        ))
        .expect("CertificateSigningRequest discovered");
    assert_eq!(csr_resource.plural, "certificatesigningrequests");
    assert_eq!(csr_caps.scope, Scope::Cluster);

    // The discovered resource drives a dynamic client.
    let typed: Api<HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "dyn");
    typed
        .create(&PostParams::default(), &hpa("web", 3))
        .await
        .expect("create");
    let dynamic: Api<DynamicObject> = Api::namespaced_with(client, "dyn", &hpa_resource);
    let listed = dynamic
        .list(&ListParams::default())
        .await
        .expect("dynamic list");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].data["spec"]["maxReplicas"], json!(3));
}
