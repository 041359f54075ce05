//! Create, read, replace, patch and delete through the generated router, in process:
//! status codes and exact `Status` bodies, system metadata, generation and
//! resourceVersion, status subresources, dry runs, delete preconditions, finalizers.

mod harness;

use harness::{Api, CSRS, HPAS, csr, hpa, names, rv};
use kube_apigen::axum::http::StatusCode;
use serde_json::{Value, json};
fn condition(kind: &str) -> Value {
    json!({"type": kind, "status": "True", "reason": "Test", "message": "by the test"})
}
harness::backend_tests! {
    async fn field_manager_parameter_names_the_manager() {
        let api = Api::new();
        let created = api.create(&format!("{HPAS}?fieldManager=kubectl-create"), &hpa("web", json!({}))).await;
        assert_eq!(created["metadata"]["managedFields"][0]["manager"], "kubectl-create");
    }

    async fn quantities_are_stored_as_the_api_server_writes_them() {
        let api = Api::new();
        let mut object = hpa("web", json!({}));
        let target = |value: Value| {
            json!([{"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": value}}}])
        };
        object["spec"]["metrics"] = target(json!("1024Mi"));
        let created = api.create(HPAS, &object).await;
        assert_eq!(created["spec"]["metrics"][0]["resource"]["target"]["averageValue"], "1Gi");
        let (status, patched) = api.merge_patch(&format!("{HPAS}/web"), &json!({"spec": {"metrics": target(json!(1.5))}})).await;
        assert_eq!(status, StatusCode::OK, "{patched}");
        assert_eq!(patched["spec"]["metrics"][0]["resource"]["target"]["averageValue"], "1500m");
        let (_, read) = api.get(&format!("{HPAS}/web")).await;
        assert_eq!(read["spec"]["metrics"][0]["resource"]["target"]["averageValue"], "1500m");
    }

    async fn already_exists_is_409() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.post(HPAS, &hpa("web", json!({}))).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "horizontalpodautoscalers.autoscaling \"web\" already exists",
                "reason": "AlreadyExists",
                "details": {"name": "web", "group": "autoscaling", "kind": "horizontalpodautoscalers"},
                "code": 409
            })
        );
        // The same name in another namespace is another object.
        api.create("/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", &hpa("web", json!({}))).await;
    }

    async fn not_found_is_404() {
        let api = Api::new();
        let expected = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "horizontalpodautoscalers.autoscaling \"nope\" not found",
            "reason": "NotFound",
            "details": {"name": "nope", "group": "autoscaling", "kind": "horizontalpodautoscalers"},
            "code": 404
        });
        assert_eq!(api.get(&format!("{HPAS}/nope")).await, (StatusCode::NOT_FOUND, expected.clone()));
        assert_eq!(
            api.put(&format!("{HPAS}/nope"), &hpa("nope", json!({}))).await,
            (StatusCode::NOT_FOUND, expected.clone())
        );
        assert_eq!(
            api.merge_patch(&format!("{HPAS}/nope"), &json!({"spec": {"maxReplicas": 4}})).await,
            (StatusCode::NOT_FOUND, expected.clone())
        );
        assert_eq!(api.delete(&format!("{HPAS}/nope"), None).await, (StatusCode::NOT_FOUND, expected));
        let (status, body) = api.get(&format!("{CSRS}/nope")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["message"], "certificatesigningrequests.certificates.k8s.io \"nope\" not found");
    }

    async fn namespace_of_the_body_must_match_the_url() {
        let api = Api::new();
        let mut object = hpa("web", json!({}));
        object["metadata"]["namespace"] = json!("other");
        let (status, body) = api.post(HPAS, &object).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the namespace of the provided object does not match the namespace sent on the request",
                "reason": "BadRequest", "code": 400
            })
        );
        object["metadata"]["namespace"] = json!("default");
        api.create(HPAS, &object).await;
        object["metadata"]["namespace"] = json!("other");
        let (status, body) = api.put(&format!("{HPAS}/web"), &object).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body["message"],
            "the namespace of the provided object does not match the namespace sent on the request"
        );
    }

    async fn replace_with_another_name_is_400() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.put(&format!("{HPAS}/web"), &hpa("api", json!({}))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the name of the object (api) does not match the name on the URL (web)",
                "reason": "BadRequest", "code": 400
            })
        );
    }

    async fn replace_checks_the_resource_version() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        let mut update = created.clone();
        update["spec"]["maxReplicas"] = json!(5);
        let (status, updated) = api.put(&format!("{HPAS}/web"), &update).await;
        assert_eq!(status, StatusCode::OK, "{updated}");
        assert_eq!(rv(&updated), rv(&created) + 1);
        // The same resourceVersion again is stale now.
        let (status, body) = api.put(&format!("{HPAS}/web"), &update).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling \"web\": the object has been modified; please apply your changes to the latest version and try again",
                "reason": "Conflict",
                "details": {"name": "web", "group": "autoscaling", "kind": "horizontalpodautoscalers"},
                "code": 409
            })
        );
        // Without a resourceVersion the update is unconditional.
        let mut unconditional = update.clone();
        unconditional["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        unconditional["spec"]["maxReplicas"] = json!(7);
        let (status, body) = api.put(&format!("{HPAS}/web"), &unconditional).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["spec"]["maxReplicas"], 7);
        // A merge patch carrying a stale resourceVersion is a conflict too.
        let (status, body) = api
            .merge_patch(&format!("{HPAS}/web"), &json!({"metadata": {"resourceVersion": "1"}, "spec": {"maxReplicas": 2}}))
            .await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(body["reason"], "Conflict");
    }

    async fn generation_counts_spec_changes_only() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        assert_eq!(created["metadata"]["generation"], 1);
        let uri = format!("{HPAS}/web");
        let (_, labelled) = api.merge_patch(&uri, &json!({"metadata": {"labels": {"tier": "front"}}})).await;
        assert_eq!(labelled["metadata"]["generation"], 1);
        assert_eq!(rv(&labelled), rv(&created) + 1);
        let (_, status_only) = api
            .merge_patch(&format!("{uri}/status"), &json!({"status": {"currentReplicas": 2, "desiredReplicas": 2}}))
            .await;
        assert_eq!(status_only["metadata"]["generation"], 1);
        let (_, spec) = api.merge_patch(&uri, &json!({"spec": {"maxReplicas": 9}})).await;
        assert_eq!(spec["metadata"]["generation"], 2);
        // Server-set fields are immutable: a client cannot change uid or creationTimestamp.
        let mut replace = spec.clone();
        replace["metadata"]["uid"] = json!("00000000-0000-4000-8000-000000000000");
        replace["metadata"]["creationTimestamp"] = json!("2001-01-01T00:00:00Z");
        replace["metadata"]["generation"] = json!(40);
        let (status, replaced) = api.put(&uri, &replace).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(replaced["metadata"]["uid"], created["metadata"]["uid"]);
        assert_eq!(replaced["metadata"]["creationTimestamp"], created["metadata"]["creationTimestamp"]);
        assert_eq!(replaced["metadata"]["generation"], 2);
    }

    async fn generate_name_appends_five_characters() {
        let api = Api::new();
        let mut object = hpa("", json!({}));
        object["metadata"] = json!({"generateName": "web-"});
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..20 {
            let created = api.create(HPAS, &object).await;
            let name = created["metadata"]["name"].as_str().unwrap().to_owned();
            assert_eq!(name.len(), 9, "{name}");
            assert!(name.starts_with("web-"));
            assert!(name[4..].chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{name}");
            assert_eq!(created["metadata"]["generateName"], "web-");
            seen.insert(name);
        }
        assert_eq!(seen.len(), 20);
    }

    async fn resource_version_on_create_is_refused() {
        let api = Api::new();
        let mut object = hpa("web", json!({}));
        object["metadata"]["resourceVersion"] = json!("12");
        let (status, body) = api.post(HPAS, &object).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["message"], "Internal error occurred: resourceVersion should not be set on objects to be created");
    }

    async fn writes_to_the_resource_keep_the_stored_status() {
        let api = Api::new();
        let mut object = hpa("web", json!({}));
        object["status"] = json!({"currentReplicas": 5, "desiredReplicas": 5});
        let created = api.create(HPAS, &object).await;
        assert_eq!(created.get("status"), None, "status cannot be set on create");
        let uri = format!("{HPAS}/web");
        let (status, with_status) = api
            .put(&format!("{uri}/status"), &{
                let mut o = created.clone();
                o["status"] = json!({"currentReplicas": 2, "desiredReplicas": 3});
                o["spec"]["maxReplicas"] = json!(99);
                o["metadata"]["labels"] = json!({"ignored": "yes"});
                o
            })
            .await;
        assert_eq!(status, StatusCode::OK, "{with_status}");
        assert_eq!(with_status["status"], json!({"currentReplicas": 2, "desiredReplicas": 3}));
        assert_eq!(with_status["spec"]["maxReplicas"], 3, "a status write changes only the status");
        assert_eq!(with_status["metadata"]["labels"], created["metadata"]["labels"]);
        assert_eq!(
            with_status["metadata"]["managedFields"][1],
            json!({
                "manager": "apiserver-tests", "operation": "Update", "apiVersion": "autoscaling/v2",
                "time": with_status["metadata"]["managedFields"][1]["time"], "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {"f:currentReplicas": {}, "f:desiredReplicas": {}}},
                "subresource": "status"
            })
        );
        let mut replace = with_status.clone();
        replace["status"] = json!({"currentReplicas": 0, "desiredReplicas": 0});
        replace["spec"]["maxReplicas"] = json!(4);
        let (status, replaced) = api.put(&uri, &replace).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(replaced["spec"]["maxReplicas"], 4);
        assert_eq!(
            replaced["status"],
            json!({"currentReplicas": 2, "desiredReplicas": 3}),
            "the resource keeps the status"
        );
        let (_, patched) = api.merge_patch(&uri, &json!({"status": {"desiredReplicas": 8}})).await;
        assert_eq!(patched["status"]["desiredReplicas"], 3);
        let (_, read) = api.get(&format!("{uri}/status")).await;
        assert_eq!(read, patched);
    }

    async fn patched_objects_are_validated() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.merge_patch(&format!("{HPAS}/web"), &json!({"spec": {"maxReplicas": 0}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["reason"], "Invalid");
        assert_eq!(body["details"]["kind"], "HorizontalPodAutoscaler");
        assert_eq!(body["details"]["group"], "autoscaling");
        assert_eq!(body["details"]["name"], "web");
        let message = body["message"].as_str().unwrap();
        assert!(message.starts_with("HorizontalPodAutoscaler.autoscaling \"web\" is invalid: "), "{message}");
        assert!(message.contains("spec.maxReplicas"), "{message}");
        // A patch producing something the model cannot decode.
        let (status, body) = api.merge_patch(&format!("{HPAS}/web"), &json!({"spec": {"maxReplicas": "many"}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        let message = body["message"].as_str().unwrap();
        assert!(message.starts_with(" \"\" is invalid: patch: Invalid value: \"{"), "{message}");
        // JSON patch.
        let (status, body) = api
            .json_patch(&format!("{HPAS}/web"), &json!([{"op": "replace", "path": "/spec/minReplicas", "value": 2}]))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"]["minReplicas"], 2);
        // Renaming through a patch is refused.
        let (status, body) = api.merge_patch(&format!("{HPAS}/web"), &json!({"metadata": {"name": "other"}})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "the name of the object (other) does not match the name on the URL (web)");
    }

    async fn strict_field_validation_rejects_unknown_fields_of_patches() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let uri = format!("{HPAS}/web");
        let (status, body) =
            api.merge_patch(&format!("{uri}?fieldValidation=Strict"), &json!({"spec": {"bogus": 1}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        let message = body["message"].as_str().unwrap();
        assert!(message.ends_with("strict decoding error: unknown field \"spec.bogus\""), "{message}");
        // Otherwise unknown fields are dropped.
        let (status, body) = api.merge_patch(&uri, &json!({"spec": {"bogus": 1}})).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["spec"].get("bogus"), None);
    }

    async fn finalizers_hold_a_deleted_object_until_removed() {
        let api = Api::new();
        let mut object = hpa("web", json!({}));
        object["metadata"]["finalizers"] = json!(["example.com/hold"]);
        api.create(HPAS, &object).await;
        let (status, body) = api.delete(&format!("{HPAS}/web"), None).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        assert_eq!(body["status"], "Success");
        let (_, held) = api.get(&format!("{HPAS}/web")).await;
        assert!(held["metadata"]["deletionTimestamp"].is_string());
        let (status, _) = api.merge_patch(&format!("{HPAS}/web"), &json!({"metadata": {"finalizers": null}})).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(api.get(&format!("{HPAS}/web")).await.0, StatusCode::NOT_FOUND);
    }

    async fn delete_collection_with_selectors() {
        let api = Api::new();
        api.create(HPAS, &hpa("a", json!({"tier": "front"}))).await;
        api.create(HPAS, &hpa("b", json!({"tier": "back"}))).await;
        api.create(HPAS, &hpa("c", json!({"tier": "front"}))).await;
        api.create("/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", &hpa("d", json!({"tier": "front"})))
            .await;
        let (status, body) = api.delete(&format!("{HPAS}?labelSelector=tier%3Dfront"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}));
        let (_, list) = api.get(harness::HPAS_ALL).await;
        assert_eq!(names(&list), vec!["b", "d"]);
        let (status, _) = api.delete(&format!("{CSRS}?fieldSelector=metadata.name%3Dx"), None).await;
        assert_eq!(status, StatusCode::OK);
    }

    async fn lists_sort_by_namespace_and_name_and_filter_by_namespace() {
        let api = Api::new();
        for (ns, name) in [("b", "z"), ("a", "y"), ("b", "a"), ("a", "x")] {
            api.create(&format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers"), &hpa(name, json!({})))
                .await;
        }
        let (_, all) = api.get(harness::HPAS_ALL).await;
        assert_eq!(names(&all), vec!["x", "y", "a", "z"]);
        let (_, b) = api.get("/apis/autoscaling/v2/namespaces/b/horizontalpodautoscalers").await;
        assert_eq!(names(&b), vec!["a", "z"]);
        let (_, none) = api.get(HPAS).await;
        assert_eq!(none["items"], json!([]));
    }

    async fn managed_fields_move_between_managers() {
        let api = Api::new();
        api.create(&format!("{HPAS}?fieldManager=alice"), &hpa("web", json!({}))).await;
        let (_, patched) =
            api.merge_patch(&format!("{HPAS}/web?fieldManager=bob"), &json!({"spec": {"maxReplicas": 5}})).await;
        let entries = patched["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0]["manager"], "alice");
        assert_eq!(
            entries[0]["fieldsV1"],
            json!({"f:metadata": {"f:labels": {}}, "f:spec": {"f:minReplicas": {}, "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}})
        );
        assert_eq!(entries[1]["manager"], "bob");
        assert_eq!(entries[1]["fieldsV1"], json!({"f:spec": {"f:maxReplicas": {}}}));
    }

    async fn server_side_apply_creates_then_updates() {
        let api = Api::new();
        let uri = format!("{HPAS}/web?fieldManager=ssa");
        let applied = hpa("web", json!({"app": "web"}));
        let (status, created) =
            api.call(kube_apigen::axum::http::Method::PATCH, &uri, "application/apply-patch+yaml", Some(&applied)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        assert_eq!(created["metadata"]["namespace"], "default");
        assert_eq!(created["metadata"]["generation"], 1);
        assert!(created["metadata"]["uid"].is_string());
        let entries = created["metadata"]["managedFields"].as_array().unwrap();
        assert!(entries.iter().any(|e| e["manager"] == "ssa" && e["operation"] == "Apply"), "{entries:?}");
        let mut changed = applied.clone();
        changed["spec"]["maxReplicas"] = json!(6);
        let (status, updated) =
            api.call(kube_apigen::axum::http::Method::PATCH, &uri, "application/apply-patch+yaml", Some(&changed)).await;
        assert_eq!(status, StatusCode::OK, "{updated}");
        assert_eq!(updated["spec"]["maxReplicas"], 6);
        assert_eq!(updated["metadata"]["generation"], 2);
        assert_eq!(updated["metadata"]["uid"], created["metadata"]["uid"]);
        // Apply needs a field manager.
        let (status, body) = api
            .call(
                kube_apigen::axum::http::Method::PATCH,
                &format!("{HPAS}/web"),
                "application/apply-patch+yaml",
                Some(&changed),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
        );
        // Other patches of a missing object are 404.
        let (status, _) = api.merge_patch(&format!("{HPAS}/missing"), &json!({})).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }

    // ---------------------------------------------------------------------------------------
    // CertificateSigningRequest semantics.
    // ---------------------------------------------------------------------------------------


    async fn csr_user_fields_come_from_the_requester_and_stay() {
        let api = Api::new();
        let mut object = csr("req", "example.com/signer");
        object["spec"]["username"] = json!("mallory");
        object["spec"]["groups"] = json!(["system:masters"]);
        object["spec"]["uid"] = json!("forged");
        object["status"] = json!({"conditions": [condition("Approved")]});
        let created = api.create(CSRS, &object).await;
        assert_eq!(created["spec"]["username"], "system:anonymous");
        assert_eq!(created["spec"]["groups"], json!(["system:unauthenticated"]));
        assert_eq!(created["spec"].get("uid"), None);
        assert_eq!(created.get("status"), None, "no pre-approved requests");
        assert_eq!(created["metadata"].get("namespace"), None);

        let mut update = created.clone();
        update["spec"]["username"] = json!("mallory");
        update["spec"]["signerName"] = json!("example.com/other");
        update["metadata"]["labels"] = json!({"a": "b"});
        let (status, updated) = api.put(&format!("{CSRS}/req"), &update).await;
        assert_eq!(status, StatusCode::OK, "{updated}");
        assert_eq!(updated["spec"], created["spec"], "the spec is immutable");
        assert_eq!(updated["metadata"]["labels"], json!({"a": "b"}));
    }

    async fn csr_approval_changes_only_approval_conditions() {
        let api = Api::new();
        let created = api.create(CSRS, &csr("req", "example.com/signer")).await;
        let mut approve = created.clone();
        approve["status"] = json!({"conditions": [condition("Approved")], "certificate": "Y2VydA=="});
        approve["spec"]["signerName"] = json!("example.com/other");
        let (status, approved) = api.put(&format!("{CSRS}/req/approval"), &approve).await;
        assert_eq!(status, StatusCode::OK, "{approved}");
        let conditions = approved["status"]["conditions"].as_array().unwrap();
        assert_eq!(conditions.len(), 1);
        assert_eq!(conditions[0]["type"], "Approved");
        assert!(conditions[0]["lastUpdateTime"].is_string());
        assert_eq!(conditions[0]["lastTransitionTime"], conditions[0]["lastUpdateTime"]);
        assert_eq!(approved["status"].get("certificate"), None, "approval does not issue");
        assert_eq!(approved["spec"], created["spec"]);

        // Approved and Denied are exclusive (the schema's rule).
        let mut deny = approved.clone();
        deny["status"]["conditions"].as_array_mut().unwrap().push(condition("Denied"));
        let (status, body) = api.put(&format!("{CSRS}/req/approval"), &deny).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

        // Removing the approval is forbidden.
        let mut remove = approved.clone();
        remove["status"]["conditions"] = json!([]);
        let (status, body) = api.put(&format!("{CSRS}/req/approval"), &remove).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["message"],
            "CertificateSigningRequest.certificates.k8s.io \"req\" is invalid: status.conditions: Forbidden: updates may not remove a condition of type \"Approved\""
        );

        // The status subresource issues the certificate but cannot approve.
        let mut issue = approved.clone();
        issue["status"]["certificate"] = json!("Y2VydA==");
        let (status, issued) = api.put(&format!("{CSRS}/req/status"), &issue).await;
        assert_eq!(status, StatusCode::OK, "{issued}");
        assert_eq!(issued["status"]["certificate"], "Y2VydA==");
        assert_eq!(issued["status"]["conditions"], approved["status"]["conditions"]);
    }

    async fn csr_status_cannot_add_approval_conditions() {
        let api = Api::new();
        let created = api.create(CSRS, &csr("req", "example.com/signer")).await;
        let mut approve = created.clone();
        approve["status"] = json!({"conditions": [condition("Approved")]});
        let (status, body) = api.put(&format!("{CSRS}/req/status"), &approve).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["message"],
            "CertificateSigningRequest.certificates.k8s.io \"req\" is invalid: status.conditions: Forbidden: updates may not add a condition of type \"Approved\""
        );
        // A Failed condition is the signer's, through status.
        let mut failed = created.clone();
        failed["status"] = json!({"conditions": [condition("Failed")]});
        let (status, body) = api.put(&format!("{CSRS}/req/status"), &failed).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // The merge-patch route of `kubectl certificate approve`'s JSON equivalent.
        let (status, body) = api
            .merge_patch(
                &format!("{CSRS}/req/approval"),
                &json!({"status": {"conditions": [condition("Failed"), condition("Denied")]}}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let types: Vec<&str> =
            body["status"]["conditions"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(types, vec!["Failed", "Denied"]);
    }

    async fn cluster_scoped_objects_have_no_namespace() {
        let api = Api::new();
        let mut object = csr("req", "example.com/signer");
        object["metadata"]["namespace"] = json!("default");
        let (status, body) = api.post(CSRS, &object).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["details"]["causes"][0]["field"], "metadata.namespace");
    }

    async fn server_side_apply_conflicts_and_force() {
        use kube_apigen::axum::http::Method;
        let api = Api::new();
        let apply = "application/apply-patch+yaml";
        let alice = hpa("web", json!({}));
        let (status, _) = api.call(Method::PATCH, &format!("{HPAS}/web?fieldManager=alice"), apply, Some(&alice)).await;
        assert_eq!(status, StatusCode::CREATED);
        let mut bob = hpa("web", json!({}));
        bob["spec"]["maxReplicas"] = json!(5);
        let (status, body) = api.call(Method::PATCH, &format!("{HPAS}/web?fieldManager=bob"), apply, Some(&bob)).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Apply failed with 1 conflict: conflict with \"alice\": .spec.maxReplicas",
                "reason": "Conflict",
                "details": {"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"alice\"", "field": ".spec.maxReplicas"}]},
                "code": 409
            })
        );
        let (status, body) =
            api.call(Method::PATCH, &format!("{HPAS}/web?fieldManager=bob&force=true"), apply, Some(&bob)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["spec"]["maxReplicas"], 5);
        // force is for apply only.
        let (status, _) = api
            .call(Method::PATCH, &format!("{HPAS}/web?force=true"), "application/merge-patch+json", Some(&json!({})))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        // An apply through the resource does not write the status; through /status only the status.
        let mut with_status = bob.clone();
        with_status["status"] = json!({"desiredReplicas": 4, "currentReplicas": 4});
        let (status, body) =
            api.call(Method::PATCH, &format!("{HPAS}/web?fieldManager=bob"), apply, Some(&with_status)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body.get("status"), None);
        with_status["spec"]["maxReplicas"] = json!(50);
        let (status, body) =
            api.call(Method::PATCH, &format!("{HPAS}/web/status?fieldManager=controller"), apply, Some(&with_status)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["status"], json!({"desiredReplicas": 4, "currentReplicas": 4}));
        assert_eq!(body["spec"]["maxReplicas"], 5);
        let entry = body["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["manager"] == "controller")
            .cloned()
            .unwrap();
        assert_eq!(entry["subresource"], "status");
        assert_eq!(entry["operation"], "Apply");
    }

    async fn strategic_merge_patch() {
        use kube_apigen::axum::http::Method;
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({"a": "1"}))).await;
        let (status, body) = api
            .call(
                Method::PATCH,
                &format!("{HPAS}/web"),
                "application/strategic-merge-patch+json",
                Some(&json!({"metadata": {"labels": {"b": "2"}}, "spec": {"maxReplicas": 4}})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["metadata"]["labels"], json!({"a": "1", "b": "2"}));
        assert_eq!(body["spec"]["maxReplicas"], 4);
    }

    async fn unknown_routes_and_methods_answer_status_objects() {
        let api = Api::new();
        let (status, body) = api.get("/apis/autoscaling/v2/namespaces/default/widgets").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the server could not find the requested resource", "reason": "NotFound", "details": {}, "code": 404
            })
        );
        let (status, body) = api.post(&format!("{HPAS}/web"), &hpa("web", json!({}))).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(body["message"], "the server does not allow this method on the requested resource");
        let (status, body) = api.get("/apis/autoscaling/v2/namespaces/%FF/horizontalpodautoscalers").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["kind"], "Status");
        assert_eq!(body["reason"], "BadRequest");
    }

    async fn merge_patches_must_be_objects() {
        let api = Api::new();
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.merge_patch(&format!("{HPAS}/web"), &json!(null)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "Invalid JSON Patch");
        let (status, body) = api.merge_patch(&format!("{HPAS}/web"), &json!([1])).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }

    in_memory_only:

    async fn create_fills_system_metadata() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({"app": "web"}))).await;
        let meta = &created["metadata"];
        assert_eq!(created["apiVersion"], "autoscaling/v2");
        assert_eq!(created["kind"], "HorizontalPodAutoscaler");
        assert_eq!(meta["namespace"], "default");
        assert_eq!(meta["generation"], 1);
        assert_eq!(meta["resourceVersion"], "1");
        let uid = meta["uid"].as_str().unwrap();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4", "a version 4 UUID: {uid}");
        let created_at = meta["creationTimestamp"].as_str().unwrap();
        assert!(created_at.ends_with('Z') && created_at.len() == 20, "{created_at}");
        // The manager is the User-Agent's prefix when no fieldManager is given.
        assert_eq!(
            meta["managedFields"],
            json!([{
                "manager": "apiserver-tests",
                "operation": "Update",
                "apiVersion": "autoscaling/v2",
                "time": created_at,
                "fieldsType": "FieldsV1",
                "fieldsV1": {
                    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                    "f:spec": {
                        "f:maxReplicas": {},
                        "f:minReplicas": {},
                        "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}
                    }
                }
            }])
        );
        let (status, read) = api.get(&format!("{HPAS}/web")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(read, created);
    }

    async fn a_no_op_update_keeps_the_resource_version() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, same) = api.put(&format!("{HPAS}/web"), &created).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(same, created);
        assert_eq!(api.store.resource_version().await.unwrap(), 1);
    }

    async fn delete_answers_a_success_status() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, body) = api.delete(&format!("{HPAS}/web"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": "web", "group": "autoscaling", "kind": "horizontalpodautoscalers", "uid": created["metadata"]["uid"]}
            })
        );
        assert_eq!(api.get(&format!("{HPAS}/web")).await.0, StatusCode::NOT_FOUND);
        assert_eq!(api.store.resource_version().await.unwrap(), 2, "a delete takes a resourceVersion");
        // Background propagation and grace periods are accepted; Foreground and Orphan
        // hold the object for the garbage collector (tests/lifecycle.rs).
        api.create(HPAS, &hpa("web", json!({}))).await;
        let (status, _) = api
            .delete(&format!("{HPAS}/web?gracePeriodSeconds=0"), Some(&json!({"propagationPolicy": "Background"})))
            .await;
        assert_eq!(status, StatusCode::OK);
    }

    async fn dry_run_persists_nothing() {
        let api = Api::new();
        let (status, dry) = api.post(&format!("{HPAS}?dryRun=All"), &hpa("web", json!({}))).await;
        assert_eq!(status, StatusCode::CREATED);
        assert_eq!(dry["metadata"]["name"], "web");
        assert!(dry["metadata"]["uid"].is_string());
        assert_eq!(dry["metadata"].get("resourceVersion"), None);
        assert_eq!(api.get(&format!("{HPAS}/web")).await.0, StatusCode::NOT_FOUND);
        assert_eq!(api.store.resource_version().await.unwrap(), 0);

        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        // Validation still runs.
        let (status, body) = api.merge_patch(&format!("{HPAS}/web?dryRun=All"), &json!({"spec": {"maxReplicas": 0}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let (status, dry) = api.merge_patch(&format!("{HPAS}/web?dryRun=All"), &json!({"spec": {"maxReplicas": 6}})).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(dry["spec"]["maxReplicas"], 6);
        assert_eq!(dry["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
        let mut replace = created.clone();
        replace["spec"]["maxReplicas"] = json!(7);
        let (status, _) = api.put(&format!("{HPAS}/web?dryRun=All"), &replace).await;
        assert_eq!(status, StatusCode::OK);
        let (status, deleted) = api.delete(&format!("{HPAS}/web?dryRun=All"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(deleted["status"], "Success");
        let (_, read) = api.get(&format!("{HPAS}/web")).await;
        assert_eq!(read, created);
        assert_eq!(api.store.resource_version().await.unwrap(), 1);
        // dryRun in the DeleteOptions body counts too.
        let (status, _) = api.delete(&format!("{HPAS}/web"), Some(&json!({"dryRun": ["All"]}))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(api.get(&format!("{HPAS}/web")).await.0, StatusCode::OK);
    }

    async fn delete_preconditions() {
        let api = Api::new();
        let created = api.create(HPAS, &hpa("web", json!({}))).await;
        let uid = created["metadata"]["uid"].as_str().unwrap();
        let (status, body) =
            api.delete(&format!("{HPAS}/web"), Some(&json!({"preconditions": {"uid": "not-the-uid"}}))).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": format!("Operation cannot be fulfilled on HorizontalPodAutoscaler.autoscaling \"web\": the UID in the precondition (not-the-uid) does not match the UID in record ({uid}). The object might have been deleted and then recreated"),
                "reason": "Conflict",
                "details": {"name": "web", "group": "autoscaling", "kind": "HorizontalPodAutoscaler"},
                "code": 409
            })
        );
        let (status, body) =
            api.delete(&format!("{HPAS}/web"), Some(&json!({"preconditions": {"resourceVersion": "99"}}))).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body["message"],
            "Operation cannot be fulfilled on HorizontalPodAutoscaler.autoscaling \"web\": the ResourceVersion in the precondition (99) does not match the ResourceVersion in record (1). The object might have been modified"
        );
        let (status, _) =
            api.delete(&format!("{HPAS}/web"), Some(&json!({"preconditions": {"uid": uid, "resourceVersion": "1"}}))).await;
        assert_eq!(status, StatusCode::OK);
    }

    async fn one_resource_version_counter_for_the_whole_store() {
        let api = Api::new();
        let a = api.create(HPAS, &hpa("a", json!({}))).await;
        let b = api.create(CSRS, &csr("b", "example.com/signer")).await;
        let c = api.create("/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", &hpa("c", json!({}))).await;
        assert_eq!((rv(&a), rv(&b), rv(&c)), (1, 2, 3));
        let (_, list) = api.get(HPAS).await;
        assert_eq!(list["metadata"]["resourceVersion"], "3");
        assert_eq!(list["kind"], "HorizontalPodAutoscalerList");
        assert_eq!(list["apiVersion"], "autoscaling/v2");
    }
}
