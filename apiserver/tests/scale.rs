//! The `scale` subresource, on the fixture crate's Gizmo custom resource
//! (`specReplicasPath: .spec.replicas`, `statusReplicasPath: .status.replicas`,
//! `labelSelectorPath: .status.selector`; a CEL rule `self.replicas <= self.maxReplicas`).

mod harness;

use std::time::Duration;

use harness::{Api, rv};
use kube_apigen::axum::http::{Method, StatusCode};
use kube_apigen::dynamic::{DynamicApi, Request, Response, Verb};
use serde_json::{Value, json};

const GIZMOS: &str = "/apis/crd.example.com/v1/namespaces/default/gizmos";

fn gizmo(name: &str, replicas: i64, max: i64) -> Value {
    json!({
        "apiVersion": "crd.example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"mode": "Always", "replicas": replicas, "maxReplicas": max}
    })
}

fn scale_uri(name: &str) -> String {
    format!("{GIZMOS}/{name}/scale")
}

fn scale(name: &str, replicas: i64) -> Value {
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas}
    })
}

/// The stored object, as the store has it (the router's answers go through the model,
/// whose ObjectMeta has no `managedFields` in the fixture crate).
async fn stored(api: &Api, name: &str) -> Value {
    let request = Request {
        verb: Verb::Get,
        resource: &fixture_api::com::example::crd::v1::GIZMO,
        subresource: None,
        namespace: Some("default".into()),
        name: Some(name.into()),
        options: Default::default(),
        body: None,
        patch: None,
    };
    match api.store.handle(Default::default(), request).await {
        Ok(Response::Object { body, .. }) => body,
        Ok(Response::Watch(_)) => panic!("a watch"),
        Err(status) => panic!("{status:?}"),
    }
}

/// The managed-fields entries of `object` as (manager, operation, subresource).
fn managers(object: &Value) -> Vec<(String, String, String)> {
    object["metadata"]["managedFields"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let field = |k: &str| e[k].as_str().unwrap_or("").to_owned();
                    (field("manager"), field("operation"), field("subresource"))
                })
                .collect()
        })
        .unwrap_or_default()
}
harness::backend_tests! {
    async fn get_scale_reads_the_scale_paths() {
        let api = Api::fixture();
        let created = api.create(GIZMOS, &gizmo("web", 2, 5)).await;

        let (status, body) = api.get(&scale_uri("web")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let meta = &created["metadata"];
        assert_eq!(
            body,
            json!({
                "apiVersion": "autoscaling/v1",
                "kind": "Scale",
                "metadata": {
                    "name": "web",
                    "namespace": "default",
                    "uid": meta["uid"],
                    "resourceVersion": meta["resourceVersion"],
                    "creationTimestamp": meta["creationTimestamp"],
                },
                "spec": {"replicas": 2},
                // No status yet: 0 replicas (always sent), no selector.
                "status": {"replicas": 0}
            })
        );

        // The status subresource fills in what the Scale's status shows.
        let mut with_status = created.clone();
        with_status["status"] = json!({"replicas": 1, "selector": "app=web"});
        let (status, body) = api.put(&format!("{GIZMOS}/web/status"), &with_status).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let (_, body) = api.get(&scale_uri("web")).await;
        assert_eq!(body["status"], json!({"replicas": 1, "selector": "app=web"}));
        assert_eq!(body["spec"], json!({"replicas": 2}));
        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(body["metadata"]["resourceVersion"], object["metadata"]["resourceVersion"]);

        // Zero replicas: `spec.replicas` is omitted, as Go's omitempty does.
        let (status, _) = api.put(&scale_uri("web"), &scale("web", 0)).await;
        assert_eq!(status, StatusCode::OK);
        let (_, body) = api.get(&scale_uri("web")).await;
        assert_eq!(body["spec"], json!({}));
    }

    async fn put_scale_writes_spec_replicas_as_an_update() {
        let api = Api::fixture();
        let created = api.create(GIZMOS, &gizmo("web", 2, 5)).await;
        let mut watch = api.watch(&format!("{GIZMOS}?watch=true&resourceVersion={}", rv(&created))).await;

        let (status, body) = api.put(&scale_uri("web"), &scale("web", 4)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["kind"], "Scale");
        assert_eq!(body["spec"], json!({"replicas": 4}));
        assert!(rv(&body) > rv(&created), "a new resourceVersion: {body}");

        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 4);
        assert_eq!(object["spec"]["maxReplicas"], 5, "the rest of the spec is kept");
        assert_eq!(object["spec"]["mode"], "Always");
        assert_eq!(object["metadata"]["labels"], json!({"app": "web"}));
        assert_eq!(object["metadata"]["generation"], 2, "the spec changed");
        assert_eq!(object["metadata"]["resourceVersion"], body["metadata"]["resourceVersion"]);

        // Watchers see the object, MODIFIED.
        let event = watch.next_change().await;
        assert_eq!(event["type"], "MODIFIED");
        assert_eq!(event["object"]["kind"], "Gizmo");
        assert_eq!(event["object"]["spec"]["replicas"], 4);

        // The same replicas again: nothing changes.
        let (status, again) = api.put(&scale_uri("web"), &scale("web", 4)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(again["metadata"]["resourceVersion"], body["metadata"]["resourceVersion"]);
        watch.expect_quiet(Duration::from_millis(100)).await;

        // Only spec.replicas is written: the Scale's status is not the object's.
        let mut with_status = scale("web", 3);
        with_status["status"] = json!({"replicas": 9, "selector": "x=y"});
        let (status, body) = api.put(&scale_uri("web"), &with_status).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["status"], json!({"replicas": 0}));
        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 3);
        assert_eq!(object.get("status"), None, "{object}");
    }

    async fn put_scale_honours_the_resource_version_precondition() {
        let api = Api::fixture();
        let created = api.create(GIZMOS, &gizmo("web", 2, 5)).await;
        let mut current = scale("web", 3);
        current["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"].clone();
        let (status, body) = api.put(&scale_uri("web"), &current).await;
        assert_eq!(status, StatusCode::OK, "{body}");

        // The same (now stale) version again.
        current["spec"]["replicas"] = json!(1);
        let (status, body) = api.put(&scale_uri("web"), &current).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["reason"], "Conflict");
        assert_eq!(
            body["message"],
            "Operation cannot be fulfilled on gizmos.crd.example.com \"web\": the object has been \
             modified; please apply your changes to the latest version and try again"
        );
        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 3);

        // A Scale naming another object is 400.
        let (status, body) = api.put(&scale_uri("web"), &scale("other", 1)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["message"], "the name of the object (other) does not match the name on the URL (web)");
    }

    async fn scale_writes_run_the_kinds_validation() {
        let api = Api::fixture();
        api.create(GIZMOS, &gizmo("web", 2, 5)).await;

        // The CEL rule of the spec: replicas <= maxReplicas.
        let (status, body) = api.put(&scale_uri("web"), &scale("web", 6)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["details"]["kind"], "Gizmo");
        let message = body["message"].as_str().unwrap();
        assert!(
            message.starts_with("Gizmo.crd.example.com \"web\" is invalid: spec.replicas:")
                && message.ends_with("replicas must not exceed maxReplicas"),
            "{message}"
        );
        let (status, body) = api.merge_patch(&scale_uri("web"), &json!({"spec": {"replicas": 7}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(body["message"].as_str().unwrap().ends_with("replicas must not exceed maxReplicas"));

        // The Scale's own rule: no negative replicas.
        let (status, body) = api.merge_patch(&scale_uri("web"), &json!({"spec": {"replicas": -1}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater \
             than or equal to 0"
        );
        let (status, body) = api.put(&scale_uri("web"), &scale("web", -1)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 2, "nothing was written");
        assert_eq!(object["metadata"]["generation"], 1);
    }

    async fn patch_scale_applies_to_the_scale() {
        let api = Api::fixture();
        api.create(GIZMOS, &gizmo("web", 2, 5)).await;

        let (status, body) = api.merge_patch(&scale_uri("web"), &json!({"spec": {"replicas": 3}})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"], json!({"replicas": 3}));

        let patch = json!([
            {"op": "test", "path": "/spec/replicas", "value": 3},
            {"op": "replace", "path": "/spec/replicas", "value": 5}
        ]);
        let (status, body) = api.json_patch(&scale_uri("web"), &patch).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"], json!({"replicas": 5}));
        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 5);
        assert_eq!(object["metadata"]["generation"], 3);

        // The patch sees the Scale, not the object: /spec/maxReplicas is not there.
        let patch = json!([{"op": "replace", "path": "/spec/maxReplicas", "value": 9}]);
        let (status, body) = api.json_patch(&scale_uri("web"), &patch).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

        // A stale resourceVersion in the patch is a precondition too.
        let (status, body) = api
            .merge_patch(&scale_uri("web"), &json!({"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 1}}))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");

        // Unknown fields under fieldValidation=Strict.
        let (status, body) = api
            .merge_patch(
                &format!("{}?fieldValidation=Strict", scale_uri("web")),
                &json!({"spec": {"replicas": 1, "maxReplicas": 9}}),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(
            body["message"].as_str().unwrap().ends_with("strict decoding error: unknown field \"spec.maxReplicas\""),
            "{body}"
        );

        // dryRun: answered, not written.
        let (status, body) =
            api.merge_patch(&format!("{}?dryRun=All", scale_uri("web")), &json!({"spec": {"replicas": 1}})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"], json!({"replicas": 1}));
        let (_, object) = api.get(&format!("{GIZMOS}/web")).await;
        assert_eq!(object["spec"]["replicas"], 5);
    }

    /// Managed fields: the fixture crate's ObjectMeta has no `managedFields` (its specs'
    /// ObjectMeta is a small one), so the typed checks would drop them, and the router's
    /// answers do: this store has no typed checks, and the objects are read from the store.
    async fn scale_writes_record_managed_fields_of_the_scale_subresource() {
        let api = Api::fixture_with(|config| config.typed_checks.clear());
        api.create(GIZMOS, &gizmo("web", 2, 5)).await;
        let (status, body) = api.put(&scale_uri("web"), &scale("web", 4)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let object = stored(&api, "web").await;
        assert_eq!(
            managers(&object),
            vec![
                ("apiserver-tests".to_owned(), "Update".to_owned(), String::new()),
                ("apiserver-tests".to_owned(), "Update".to_owned(), "scale".to_owned()),
            ],
            "{object}"
        );
        let scale_entry = &object["metadata"]["managedFields"][1];
        assert_eq!(scale_entry["apiVersion"], "crd.example.com/v1");
        assert_eq!(scale_entry["fieldsV1"], json!({"f:spec": {"f:replicas": {}}}));
    }

    async fn apply_to_scale_owns_the_replicas() {
        let api = Api::fixture_with(|config| config.typed_checks.clear());
        api.create(GIZMOS, &gizmo("web", 2, 5)).await;
        let config = json!({
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {"name": "web"},
            "spec": {"replicas": 4}
        });
        let uri = format!("{}?fieldManager=autoscaler", scale_uri("web"));

        // The creator owns spec.replicas: a conflict, unless forced.
        let (status, body) = api.call(Method::PATCH, &uri, "application/apply-patch+yaml", Some(&config)).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(
            body["message"],
            "Apply failed with 1 conflict: conflict with \"apiserver-tests\" using crd.example.com/v1: \
             .spec.replicas"
        );
        let (status, body) =
            api.call(Method::PATCH, &format!("{uri}&force=true"), "application/apply-patch+yaml", Some(&config)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"], json!({"replicas": 4}));
        let object = stored(&api, "web").await;
        assert_eq!(object["spec"]["replicas"], 4);
        assert!(managers(&object).contains(&("autoscaler".to_owned(), "Apply".to_owned(), "scale".to_owned())), "{object}");

        // The configuration must be a Scale.
        let mut wrong = config.clone();
        wrong["kind"] = json!("Gizmo");
        let (status, body) = api.call(Method::PATCH, &uri, "application/apply-patch+yaml", Some(&wrong)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }

    async fn scale_of_a_missing_object_or_a_resource_without_one() {
        let api = Api::fixture();
        for (status, body) in [
            api.get(&scale_uri("missing")).await,
            api.put(&scale_uri("missing"), &scale("missing", 1)).await,
            api.merge_patch(&scale_uri("missing"), &json!({"spec": {"replicas": 1}})).await,
        ] {
            assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
            assert_eq!(body["message"], "gizmos.crd.example.com \"missing\" not found");
        }

        // No scale paths, no route: the Widget.
        let (status, _) = api.get("/apis/fixture.example.com/v1/namespaces/default/widgets/w/scale").await;
        assert_eq!(status, StatusCode::NOT_FOUND);

        // And through the store, 405.
        let request = Request {
            verb: Verb::Get,
            resource: &generated::api::autoscaling::v2::HORIZONTAL_POD_AUTOSCALER,
            subresource: Some("scale"),
            namespace: Some("default".into()),
            name: Some("web".into()),
            options: Default::default(),
            body: None,
            patch: None,
        };
        let status = match api.store.handle(Default::default(), request).await {
            Err(status) => status,
            Ok(_) => panic!("a scale without scale paths was served"),
        };
        assert_eq!(status.code(), 405);
    }
}
