//! Custom resources of the fixture crate served in several versions: the Gizmo in `v1`
//! (the storage version) and the deprecated `v1beta1` are one set of objects, answered in
//! the version of the request (the API server's `None` conversion: only `apiVersion`
//! changes).

mod harness;

use harness::{Api, names, rv};
use kube_apigen::axum::http::StatusCode;
use serde_json::json;

const V1: &str = "/apis/crd.example.com/v1/namespaces/default/gizmos";
const V1BETA1: &str = "/apis/crd.example.com/v1beta1/namespaces/default/gizmos";
harness::backend_tests! {
    async fn every_version_answers_in_its_own_api_version() {
        let api = Api::fixture();
        let created = api
            .create(
                V1,
                &json!({
                    "apiVersion": "crd.example.com/v1",
                    "kind": "Gizmo",
                    "metadata": {"name": "new"},
                    "spec": {"mode": "Always", "replicas": 2}
                }),
            )
            .await;
        api.create(
            V1BETA1,
            &json!({
                "apiVersion": "crd.example.com/v1beta1",
                "kind": "Gizmo",
                "metadata": {"name": "old"},
                "spec": {"mode": "Always", "replicas": 1}
            }),
        )
        .await;

        for (collection, api_version) in [(V1, "crd.example.com/v1"), (V1BETA1, "crd.example.com/v1beta1")] {
            for name in ["new", "old"] {
                let (status, object) = api.get(&format!("{collection}/{name}")).await;
                assert_eq!(status, StatusCode::OK, "{object}");
                assert_eq!(object["apiVersion"], api_version, "{collection}/{name}: {object}");
            }
            let (status, list) = api.get(collection).await;
            assert_eq!(status, StatusCode::OK, "{list}");
            assert_eq!(names(&list), ["new", "old"]);
            for item in list["items"].as_array().unwrap() {
                assert_eq!(item["apiVersion"], api_version, "{item}");
            }
        }

        // Watches too.
        let mut watch = api.watch(&format!("{V1BETA1}?watch=true&resourceVersion={}", rv(&created))).await;
        let event = watch.next_change().await;
        assert_eq!(event["type"], "ADDED");
        assert_eq!(event["object"]["metadata"]["name"], "old");
        assert_eq!(event["object"]["apiVersion"], "crd.example.com/v1beta1");
        let (status, _) = api.merge_patch(&format!("{V1}/new"), &json!({"spec": {"replicas": 3}})).await;
        assert_eq!(status, StatusCode::OK);
        let event = watch.next_change().await;
        assert_eq!(event["type"], "MODIFIED");
        assert_eq!(event["object"]["metadata"]["name"], "new");
        assert_eq!(event["object"]["apiVersion"], "crd.example.com/v1beta1");
        assert_eq!(event["object"]["spec"]["replicas"], 3);
    }

    /// Each version is decoded, defaulted and validated with its own schema: `v1` requires
    /// `spec.mode` and defaults `spec.maxReplicas`, `v1beta1` does neither.
    async fn each_version_is_checked_with_its_own_schema() {
        let api = Api::fixture();
        let without_mode = |api_version: &str, name: &str| {
            json!({
                "apiVersion": api_version,
                "kind": "Gizmo",
                "metadata": {"name": name},
                "spec": {"replicas": 1}
            })
        };
        let (status, body) = api.post(V1, &without_mode("crd.example.com/v1", "a")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["message"], r#"Gizmo.crd.example.com "a" is invalid: spec.mode: Required value"#);

        let created = api.create(V1BETA1, &without_mode("crd.example.com/v1beta1", "b")).await;
        assert_eq!(created["spec"], json!({"replicas": 1}));
        let created = api
            .create(V1, &json!({"apiVersion": "crd.example.com/v1", "kind": "Gizmo", "metadata": {"name": "c"}, "spec": {"mode": "Always"}}))
            .await;
        assert_eq!(
            created["spec"],
            json!({"mode": "Always", "replicas": 1, "maxReplicas": 10, "retry": {"attempts": 3, "backoff": "1s"}})
        );
    }

    /// Undeclared fields of an object that preserves them are kept, and are not unknown
    /// fields to `fieldValidation=Strict`; elsewhere they are.
    async fn preserved_unknown_fields_survive_strict_decoding() {
        let api = Api::fixture();
        let gizmo = |plugin: serde_json::Value| {
            json!({
                "apiVersion": "crd.example.com/v1",
                "kind": "Gizmo",
                "metadata": {"name": "p"},
                "spec": {"mode": "Always", "plugin": plugin}
            })
        };
        let strict = format!("{V1}?fieldValidation=Strict");
        let (status, body) = api.post(&strict, &gizmo(json!({"name": "x", "level": 3}))).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["spec"]["plugin"], json!({"name": "x", "level": 3}));

        let mut undeclared = gizmo(json!({"name": "x"}));
        undeclared["spec"]["colour"] = json!("red");
        undeclared["metadata"]["name"] = json!("q");
        let (status, body) = api.post(&strict, &undeclared).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(
            body["message"],
            r#"Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.colour""#
        );
    }
}
