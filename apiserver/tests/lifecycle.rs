//! The lifecycle of objects with owners and finalizers, as kube-apiserver and the garbage
//! collector of kube-controller-manager give it: propagation policies, the `orphan` and
//! `foregroundDeletion` finalizers, marked objects, dependents of gone owners.

mod harness;

use std::time::Duration;

use harness::{Api, HPAS, hpa};
use kube_apigen::axum::http::StatusCode;
use serde_json::{Value, json};

/// How long a test waits for the garbage collector.
const WAIT: Duration = Duration::from_secs(10);

/// Polls `uri` until `done` holds for the answer (up to [`WAIT`]); answers the last one.
async fn wait_for(api: &Api, uri: &str, done: impl Fn(StatusCode, &Value) -> bool) -> (StatusCode, Value) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (status, body) = api.get(uri).await;
        if done(status, &body) {
            return (status, body);
        }
        assert!(tokio::time::Instant::now() < deadline, "{uri} not as expected within {WAIT:?}: {status} {body}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn wait_gone(api: &Api, uri: &str) {
    wait_for(api, uri, |status, _| status == StatusCode::NOT_FOUND).await;
}

/// An owner reference to `owner`.
fn reference(owner: &Value, block: bool) -> Value {
    json!({
        "apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
        "blockOwnerDeletion": block
    })
}

/// An HPA named `name` owned through `references`, with `finalizers`.
fn dependent(name: &str, references: Vec<Value>, finalizers: &[&str]) -> Value {
    let mut object = hpa(name, json!({}));
    object["metadata"]["ownerReferences"] = json!(references);
    if !finalizers.is_empty() {
        object["metadata"]["finalizers"] = json!(finalizers);
    }
    object
}

fn uri(name: &str) -> String {
    format!("{HPAS}/{name}")
}

harness::backend_tests! {
    async fn orphan_adds_the_orphan_finalizer_and_orphans_dependents() {
        let api = Api::new();
        let owner = api.create(HPAS, &dependent("owner", vec![], &["example.com/hold"])).await;
        api.create(HPAS, &dependent("child", vec![reference(&owner, true)], &[])).await;
        let mut watch = api.watch(&format!("{HPAS}?watch=true&fieldSelector=metadata.name%3Downer&resourceVersion={}", harness::rv(&owner))).await;
        let (status, body) = api.delete(&uri("owner"), Some(&json!({"propagationPolicy": "Orphan"}))).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        let marked = watch.next_change().await;
        assert_eq!(marked["type"], "MODIFIED");
        let meta = &marked["object"]["metadata"];
        assert_eq!(meta["finalizers"], json!(["example.com/hold", "orphan"]));
        assert!(meta["deletionTimestamp"].is_string());
        assert_eq!(meta["deletionGracePeriodSeconds"], 0);
        assert_eq!(meta["generation"], 2, "marking bumps the generation");
        // The dependent loses its reference, then the owner its finalizer.
        wait_for(&api, &uri("child"), |_, child| child["metadata"].get("ownerReferences").is_none()).await;
        wait_for(&api, &uri("owner"), |_, owner| owner["metadata"]["finalizers"] == json!(["example.com/hold"])).await;
        // The legacy orphanDependents does the same.
        let other = api.create(HPAS, &hpa("other", json!({}))).await;
        api.create(HPAS, &dependent("other-child", vec![reference(&other, false)], &[])).await;
        let (status, _) = api.delete(&uri("other"), Some(&json!({"orphanDependents": true}))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        wait_gone(&api, &uri("other")).await;
        let (_, child) = api.get(&uri("other-child")).await;
        assert_eq!(child["metadata"].get("ownerReferences"), None, "{child}");
    }

    async fn background_deletes_dependents_after_the_owner() {
        let api = Api::new();
        let owner = api.create(HPAS, &hpa("owner", json!({}))).await;
        let child = api.create(HPAS, &dependent("child", vec![reference(&owner, false)], &[])).await;
        api.create(HPAS, &dependent("grandchild", vec![reference(&child, false)], &[])).await;
        let (status, _) = api.delete(&uri("owner"), None).await;
        assert_eq!(status, StatusCode::OK);
        wait_gone(&api, &uri("child")).await;
        wait_gone(&api, &uri("grandchild")).await;
    }

    async fn foreground_deletes_dependents_first() {
        let api = Api::new();
        let owner = api.create(HPAS, &hpa("owner", json!({}))).await;
        api.create(HPAS, &dependent("blocking", vec![reference(&owner, true)], &["example.com/hold"])).await;
        api.create(HPAS, &dependent("free", vec![reference(&owner, false)], &[])).await;
        let (status, _) = api.delete(&uri("owner"), Some(&json!({"propagationPolicy": "Foreground"}))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        wait_gone(&api, &uri("free")).await;
        // Deleted in the foreground: its own `foregroundDeletion` goes at once (it has no
        // dependents), its other finalizer holds it.
        wait_for(&api, &uri("blocking"), |_, b| {
            b["metadata"]["deletionTimestamp"].is_string() && b["metadata"]["finalizers"] == json!(["example.com/hold"])
        })
        .await;
        // The blocking dependent holds its owner.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (status, held) = api.get(&uri("owner")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(held["metadata"]["finalizers"], json!(["foregroundDeletion"]));
        let (status, body) =
            api.json_patch(&uri("blocking"), &json!([{"op": "remove", "path": "/metadata/finalizers/0"}])).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        wait_gone(&api, &uri("blocking")).await;
        wait_gone(&api, &uri("owner")).await;
    }

    async fn foreground_without_dependents_is_held_then_released() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.delete(&uri("web"), Some(&json!({"propagationPolicy": "Foreground"}))).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        assert_eq!(body["status"], "Success");
        wait_gone(&api, &uri("web")).await;
    }

    async fn dependents_of_missing_owners_are_deleted() {
        let api = Api::new();
        let owner = api.create(HPAS, &hpa("owner", json!({}))).await;
        let mut wrong_uid = reference(&owner, false);
        wrong_uid["uid"] = json!("00000000-0000-0000-0000-000000000000");
        api.create(HPAS, &dependent("no-such-uid", vec![wrong_uid], &[])).await;
        let mut wrong_name = reference(&owner, false);
        wrong_name["name"] = json!("someone-else");
        api.create(HPAS, &dependent("wrong-name", vec![wrong_name], &[])).await;
        // An owner in another namespace is no owner.
        let (status, body) = api
            .post(
                "/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers",
                &dependent("elsewhere", vec![reference(&owner, false)], &[]),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        wait_gone(&api, &uri("no-such-uid")).await;
        wait_gone(&api, &uri("wrong-name")).await;
        wait_gone(&api, "/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers/elsewhere").await;
        assert_eq!(api.get(&uri("owner")).await.0, StatusCode::OK);
    }

    async fn a_dependent_goes_with_its_last_owner() {
        let api = Api::new();
        let first = api.create(HPAS, &hpa("first", json!({}))).await;
        let second = api.create(HPAS, &hpa("second", json!({}))).await;
        api.create(HPAS, &dependent("shared", vec![reference(&first, false), reference(&second, false)], &[])).await;
        assert_eq!(api.delete(&uri("first"), None).await.0, StatusCode::OK);
        let (status, shared) = wait_for(&api, &uri("shared"), |_, shared| {
            shared["metadata"]["ownerReferences"].as_array().is_some_and(|r| r.len() == 1)
        })
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(shared["metadata"]["ownerReferences"][0]["name"], "second");
        assert_eq!(api.delete(&uri("second"), None).await.0, StatusCode::OK);
        wait_gone(&api, &uri("shared")).await;
    }

    async fn a_marked_object_takes_no_new_finalizers_and_keeps_its_timestamp() {
        let api = Api::new();
        api.create(HPAS, &dependent("web", vec![], &["example.com/hold"])).await;
        assert_eq!(api.delete(&uri("web"), None).await.0, StatusCode::ACCEPTED);
        let (_, marked) = api.get(&uri("web")).await;
        let (status, body) =
            api.merge_patch(&uri("web"), &json!({"metadata": {"finalizers": ["example.com/hold", "x"]}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["message"],
            "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"x\"}"
        );
        let mut replaced = marked.clone();
        replaced["metadata"]["finalizers"] = json!(["x", "example.com/hold"]);
        assert_eq!(api.put(&uri("web"), &replaced).await.0, StatusCode::UNPROCESSABLE_ENTITY);
        // A second delete changes nothing.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let (status, _) = api.delete(&uri("web"), Some(&json!({"propagationPolicy": "Orphan"}))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        assert_eq!(api.get(&uri("web")).await.1, marked);
    }

    async fn propagation_options_are_checked() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.delete(&format!("{}?propagationPolicy=Foreground&orphanDependents=true", uri("web")), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["message"],
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Foreground\": orphanDependents and deletionPropagation cannot be both set"
        );
        let (status, _) = api.delete(&format!("{}?propagationPolicy=Sideways", uri("web")), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(api.get(&uri("web")).await.0, StatusCode::OK);
    }

    in_memory_only:

    async fn the_collector_ends_with_its_server() {
        let metrics = tokio::runtime::Handle::current().metrics();
        let before = metrics.num_alive_tasks();
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        assert!(metrics.num_alive_tasks() > before, "the collector runs");
        drop(api);
        let deadline = tokio::time::Instant::now() + WAIT;
        while metrics.num_alive_tasks() > before {
            assert!(tokio::time::Instant::now() < deadline, "the collector still runs");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
