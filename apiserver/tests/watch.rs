//! Watch streams: initial events, replay from a resourceVersion, 410 for versions the
//! history no longer has, bookmarks, `sendInitialEvents`, selectors (objects entering and
//! leaving), ordering under concurrent writes, lagging watchers, and shutdown.

mod harness;

use std::sync::Arc;
use std::time::Duration;

use harness::{Api, CSRS, HPAS, csr, hpa, q, rv};
use kube_apigen::axum::http::StatusCode;
use serde_json::json;

fn event_names(events: &[serde_json::Value]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| {
            (e["type"].as_str().unwrap().to_owned(), e["object"]["metadata"]["name"].as_str().unwrap_or("").to_owned())
        })
        .collect()
}
harness::backend_tests! {
    async fn from_a_version_a_watch_replays_what_came_after() {
        let api = Api::new();
        let a = api.create(HPAS, &hpa("a", json!({}))).await;
        api.create(HPAS, &hpa("b", json!({}))).await;
        api.merge_patch(&format!("{HPAS}/a"), &json!({"spec": {"maxReplicas": 4}})).await;
        api.delete(&format!("{HPAS}/b"), None).await;
        let mut watch = api.watch(&format!("{HPAS}?watch=true&resourceVersion={}", rv(&a))).await;
        let mut events = Vec::new();
        for _ in 0..3 {
            events.push(watch.next().await);
        }
        assert_eq!(
            event_names(&events),
            vec![("ADDED".into(), "b".into()), ("MODIFIED".into(), "a".into()), ("DELETED".into(), "b".into())]
        );
        // The revisions count on from the first write's.
        let first = rv(&a);
        let versions: Vec<u64> = events.iter().map(|e| rv(&e["object"])).collect();
        assert_eq!(versions, vec![first + 1, first + 2, first + 3]);
        api.create(HPAS, &hpa("c", json!({}))).await;
        let live = watch.next().await;
        assert_eq!((live["type"].as_str(), rv(&live["object"])), (Some("ADDED"), first + 4));
        watch.expect_quiet(Duration::from_millis(200)).await;
        // The generated watch path, by name, in the namespace.
        let mut by_name = api
            .watch(&format!(
                "/apis/autoscaling/v2/watch/namespaces/default/horizontalpodautoscalers/a?resourceVersion={first}"
            ))
            .await;
        let only_a = by_name.next().await;
        assert_eq!((only_a["type"].as_str(), rv(&only_a["object"])), (Some("MODIFIED"), first + 2));
        by_name.expect_quiet(Duration::from_millis(200)).await;
    }

    async fn objects_entering_and_leaving_a_selection() {
        let api = Api::new();
        api.create(HPAS, &hpa("a", json!({"tier": "front"}))).await;
        api.create(HPAS, &hpa("b", json!({"tier": "back"}))).await;
        let mut watch = api.watch(&format!("{HPAS}?watch=true&labelSelector={}", q("tier=front"))).await;
        assert_eq!(watch.next().await["object"]["metadata"]["name"], "a");
        // b enters.
        api.merge_patch(&format!("{HPAS}/b"), &json!({"metadata": {"labels": {"tier": "front"}}})).await;
        let entered = watch.next().await;
        assert_eq!((entered["type"].as_str(), entered["object"]["metadata"]["name"].as_str()), (Some("ADDED"), Some("b")));
        // a leaves: DELETED with its previous content at the change's version.
        let (_, left) = api.merge_patch(&format!("{HPAS}/a"), &json!({"metadata": {"labels": {"tier": "back"}}})).await;
        let deleted = watch.next().await;
        assert_eq!(deleted["type"], "DELETED");
        assert_eq!(deleted["object"]["metadata"]["labels"], json!({"tier": "front"}));
        assert_eq!(deleted["object"]["metadata"]["resourceVersion"], left["metadata"]["resourceVersion"]);
        // Changes outside the selection are not sent.
        api.merge_patch(&format!("{HPAS}/a"), &json!({"spec": {"maxReplicas": 7}})).await;
        watch.expect_quiet(Duration::from_millis(200)).await;
        // Field selectors filter too, and a malformed selector is a 400 before any stream.
        let mut by_field = api.watch(&format!("{HPAS}?watch=true&fieldSelector={}", q("metadata.name=b"))).await;
        assert_eq!(by_field.next().await["object"]["metadata"]["name"], "b");
        by_field.expect_quiet(Duration::from_millis(200)).await;
        let (status, body) = api.get(&format!("{HPAS}?watch=true&labelSelector={}", q("a in b"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "unable to parse requirement: found 'b' expected: '('");
    }

    async fn watches_are_scoped_to_their_namespace() {
        let api = Api::new();
        let mut watch = api.watch(&format!("{HPAS}?watch=true")).await;
        let mut all = api.watch(&format!("{}?watch=true", harness::HPAS_ALL)).await;
        api.create("/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", &hpa("x", json!({}))).await;
        api.create(HPAS, &hpa("y", json!({}))).await;
        assert_eq!(watch.next().await["object"]["metadata"]["name"], "y");
        assert_eq!(all.next().await["object"]["metadata"]["name"], "x");
        assert_eq!(all.next().await["object"]["metadata"]["name"], "y");
    }

    async fn every_write_once_in_order_under_concurrent_writers() {
        let api = Arc::new(Api::new());
        let mut watch = api.watch(&format!("{HPAS}?watch=true&resourceVersion=0")).await;
        let mut writers = Vec::new();
        for w in 0..4 {
            let api = api.clone();
            writers.push(tokio::spawn(async move {
                for i in 0..25 {
                    api.create(HPAS, &hpa(&format!("w{w}-{i}"), json!({}))).await;
                }
            }));
        }
        for writer in writers {
            writer.await.unwrap();
        }
        let mut versions = Vec::new();
        for _ in 0..100 {
            let event = watch.next().await;
            assert_eq!(event["type"], "ADDED");
            versions.push(rv(&event["object"]));
        }
        // Consecutive revisions: every write once, in order.
        let first = versions[0];
        assert_eq!(versions, (first..first + 100).collect::<Vec<u64>>());
        watch.expect_quiet(Duration::from_millis(200)).await;
    }

    async fn timeouts_and_shutdown_end_watches_cleanly() {
        let api = Api::new();
        let mut timed = api.watch(&format!("{HPAS}?watch=true&timeoutSeconds=1")).await;
        timed.expect_end().await;
        let mut open = api.watch(&format!("{HPAS}?watch=true&allowWatchBookmarks=true")).await;
        api.create(HPAS, &hpa("a", json!({}))).await;
        assert_eq!(open.next_change().await["type"], "ADDED");
        api.store.shutdown();
        open.expect_end().await;
        // A watch opened after shutdown ends at once.
        let mut late = api.watch(&format!("{HPAS}?watch=true&resourceVersion=1")).await;
        late.expect_end().await;
    }

    in_memory_only:

    async fn a_lagging_watcher_catches_up_from_the_history() {
        let api = Api::with(|config| config.broadcast_capacity = 4, None);
        let mut watch = api.watch(&format!("{HPAS}?watch=true")).await;
        // Nobody reads the watch while 50 changes are broadcast.
        for i in 0..50 {
            api.create(HPAS, &hpa(&format!("h{i:02}"), json!({}))).await;
        }
        for expected in 1..=50 {
            let event = watch.next().await;
            assert_eq!(rv(&event["object"]), expected);
        }
    }

    async fn a_version_older_than_the_history_is_an_error_event() {
        let api = Api::with(|config| config.history = 2, None);
        for name in ["a", "b", "c", "d"] {
            api.create(HPAS, &hpa(name, json!({}))).await;
        }
        let mut watch = api.watch(&format!("{HPAS}?watch=true&resourceVersion=1")).await;
        let error = watch.next().await;
        assert_eq!(
            error,
            json!({
                "type": "ERROR",
                "object": {
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "too old resource version: 1 (2)", "reason": "Expired", "code": 410
                }
            })
        );
        watch.expect_end().await;
        // The oldest version the history serves from still works.
        let mut ok = api.watch(&format!("{HPAS}?watch=true&resourceVersion=2")).await;
        assert_eq!(ok.next().await["object"]["metadata"]["name"], "c");
    }

    async fn a_watcher_behind_the_history_gets_410() {
        let api = Api::with(
            |config| {
                config.broadcast_capacity = 2;
                config.history = 5;
            },
            None,
        );
        let mut watch = api.watch(&format!("{HPAS}?watch=true")).await;
        for i in 0..20 {
            api.create(HPAS, &hpa(&format!("h{i:02}"), json!({}))).await;
        }
        let event = watch.next().await;
        assert_eq!(event["type"], "ERROR", "{event}");
        assert_eq!(event["object"]["reason"], "Expired");
        assert_eq!(event["object"]["code"], 410);
        assert_eq!(event["object"]["message"], "too old resource version: 0 (15)");
        watch.expect_end().await;
    }

    async fn bookmarks_report_progress() {
        let api = Api::new();
        api.create(HPAS, &hpa("a", json!({}))).await;
        api.create(CSRS, &csr("x", "example.com/s")).await;
        let mut watch = api.watch(&format!("{HPAS}?watch=true&resourceVersion=2&allowWatchBookmarks=true")).await;
        // Only the version, apiVersion and kind carry information; the router's typed
        // encoding adds the model's required fields, empty, as the API server's does.
        let bookmark = watch.next().await;
        assert_eq!(bookmark["type"], "BOOKMARK");
        assert_eq!(bookmark["object"]["apiVersion"], "autoscaling/v2");
        assert_eq!(bookmark["object"]["kind"], "HorizontalPodAutoscaler");
        assert_eq!(bookmark["object"]["metadata"], json!({"resourceVersion": "2"}));
        // Progress through changes of other kinds shows up in the next bookmark.
        api.create(CSRS, &csr("y", "example.com/s")).await;
        let bookmark = watch.next().await;
        assert_eq!(bookmark["type"], "BOOKMARK");
        assert_eq!(bookmark["object"]["metadata"]["resourceVersion"], "3");
        // Without allowWatchBookmarks there are none.
        let mut quiet = api.watch(&format!("{HPAS}?watch=true&resourceVersion=3")).await;
        tokio::time::timeout(Duration::from_millis(500), quiet.next_within(Duration::from_secs(1)))
            .await
            .expect_err("no event");
    }

    async fn send_initial_events_ends_with_an_annotated_bookmark() {
        let api = Api::new();
        api.create(HPAS, &hpa("a", json!({}))).await;
        api.create(HPAS, &hpa("b", json!({}))).await;
        let mut watch = api
            .watch(&format!(
                "{HPAS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
            ))
            .await;
        assert_eq!(watch.next().await["object"]["metadata"]["name"], "a");
        assert_eq!(watch.next().await["object"]["metadata"]["name"], "b");
        let end = watch.next().await;
        assert_eq!(end["type"], "BOOKMARK");
        assert_eq!(
            end["object"]["metadata"],
            json!({"resourceVersion": "2", "annotations": {"k8s.io/initial-events-end": "true"}})
        );
        api.create(HPAS, &hpa("c", json!({}))).await;
        let added = watch.next_change().await;
        assert_eq!((added["type"].as_str(), added["object"]["metadata"]["name"].as_str()), (Some("ADDED"), Some("c")));
        // The router checks the combination of parameters.
        let (status, body) = api.get(&format!("{HPAS}?watch=true&sendInitialEvents=true")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["details"]["causes"][0]["field"], "resourceVersionMatch");
    }

    async fn without_a_version_a_watch_starts_with_the_current_objects() {
        let api = Api::new();
        api.create(HPAS, &hpa("a", json!({}))).await;
        api.create(HPAS, &hpa("b", json!({}))).await;
        let mut watch = api.watch(&format!("{HPAS}?watch=true")).await;
        let first = watch.next().await;
        assert_eq!(first["type"], "ADDED");
        assert_eq!(first["object"]["metadata"]["name"], "a");
        assert_eq!(first["object"]["kind"], "HorizontalPodAutoscaler");
        assert_eq!(first["object"]["apiVersion"], "autoscaling/v2");
        assert_eq!(watch.next().await["object"]["metadata"]["name"], "b");
        let (_, patched) = api.merge_patch(&format!("{HPAS}/a"), &json!({"spec": {"maxReplicas": 4}})).await;
        let modified = watch.next().await;
        assert_eq!(modified["type"], "MODIFIED");
        assert_eq!(modified["object"], patched);
        api.delete(&format!("{HPAS}/b"), None).await;
        let deleted = watch.next().await;
        assert_eq!(deleted["type"], "DELETED");
        assert_eq!(deleted["object"]["metadata"]["name"], "b");
        assert_eq!(deleted["object"]["metadata"]["resourceVersion"], "4", "the delete's version");
        // Other kinds do not show up.
        api.create(CSRS, &csr("x", "example.com/s")).await;
        watch.expect_quiet(Duration::from_millis(300)).await;
        // resourceVersion=0 also means "current objects first".
        let mut zero = api.watch(&format!("{HPAS}?watch=true&resourceVersion=0")).await;
        assert_eq!(zero.next().await["object"]["metadata"]["name"], "a");
    }
}
