//! Events through the generated router, in process: what the API server checks of
//! core/v1 and `events.k8s.io/v1` events beyond their specs, with its wording.

mod harness;

use harness::Api;
use kube_apigen::axum::http::StatusCode;
use serde_json::{Value, json};

const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
const CORE_EVENTS: &str = "/api/v1/namespaces/default/events";

/// An event as kube-runtime's `Recorder` writes it.
fn recorded(name: &str) -> Value {
    json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2026-12-03T10:00:00.000000Z",
        "action": "Reconciling", "reason": "Published", "note": "configmap written", "type": "Normal",
        "reportingController": "greeting-controller", "reportingInstance": "greeting-controller-0",
        "regarding": {"apiVersion": "example.com/v1", "kind": "Greeting", "name": "hello", "namespace": "default"}
    })
}

/// The `(field, reason)` of each cause of a 422.
fn causes(body: &Value) -> Vec<(String, String)> {
    let field = |cause: &Value, key: &str| cause[key].as_str().unwrap_or_default().to_owned();
    body["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (field(c, "field"), field(c, "reason")))
        .collect()
}

harness::backend_tests! {
    async fn a_recorded_event_is_created() {
        let api = Api::new();
        let created = api.create(EVENTS, &recorded("hello.1")).await;
        assert_eq!(created["reportingController"], "greeting-controller");
    }

    async fn events_v1_checks_the_new_fields_strictly() {
        let api = Api::new();
        let (status, body) = api.post(EVENTS, &json!({"metadata": {"name": "bare"}})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Event.events.k8s.io \"bare\" is invalid: [eventTime: Required value, type: Invalid value: \"\": has invalid value: ]"
        );

        let mut event = recorded("strict");
        event["type"] = json!("Info");
        event["series"] = json!({"count": 1});
        event["deprecatedCount"] = json!(3);
        event["deprecatedSource"] = json!({"component": "kubelet"});
        let (status, body) = api.post(EVENTS, &event).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Event.events.k8s.io \"strict\" is invalid: [series.count: Invalid value: \"\": should be at least 2, series.lastObservedTime: Required value, type: Invalid value: \"\": has invalid value: Info, count: Invalid value: \"\": needs to be unset, source: Invalid value: \"\": needs to be unset]"
        );
    }

    async fn reporting_fields_are_required_once_event_time_is_set() {
        let api = Api::new();
        let mut event = recorded("reporting");
        for field in ["reportingController", "reportingInstance", "action"] {
            event.as_object_mut().unwrap().remove(field);
        }
        event["reason"] = json!("r".repeat(129));
        event["note"] = json!("n".repeat(1025));
        event["regarding"]["namespace"] = json!("elsewhere");
        let (status, body) = api.post(EVENTS, &event).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let causes = causes(&body);
        let expected = [
            ("reportingController", "FieldValueRequired"),
            ("reportingController", "FieldValueInvalid"),
            ("reportingInstance", "FieldValueRequired"),
            ("action", "FieldValueRequired"),
            ("reason", "FieldValueInvalid"),
            ("message", "FieldValueInvalid"),
        ];
        for (field, reason) in expected {
            assert!(causes.iter().any(|(f, r)| f == field && r == reason), "{field} {reason} in {body}");
        }
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("reason: Invalid value: \"\": can have at most 128 characters"), "{message}");
        assert!(message.contains("message: Invalid value: \"\": can have at most 1024 characters"), "{message}");
        // A named object elsewhere is allowed once eventTime is set; only the
        // cluster-scoped case ties the event to `default` or `kube-system`.
        assert!(!causes.iter().any(|(f, _)| f == "involvedObject.namespace"), "{body}");
    }

    async fn core_events_name_an_object_of_their_namespace() {
        let api = Api::new();
        let event = json!({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "old"},
            "involvedObject": {"kind": "ConfigMap", "name": "web", "namespace": "other"},
            "reason": "Created", "message": "made", "type": "Normal"
        });
        let (status, body) = api.post(CORE_EVENTS, &event).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Event \"old\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"
        );
        let mut event = event;
        event["involvedObject"]["namespace"] = json!("default");
        assert_eq!(api.post(CORE_EVENTS, &event).await.0, StatusCode::CREATED);
        // No strict checks through core/v1: no eventTime, no reporting fields.

        // With eventTime, core/v1 names its reporting controller `reportingComponent`,
        // and so does the error.
        let mut event = json!({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "new"},
            "involvedObject": {"kind": "ConfigMap", "name": "web", "namespace": "default"},
            "eventTime": "2026-12-03T10:00:00.000000Z",
            "reportingInstance": "node-1", "action": "Created", "reason": "Created", "type": "Normal"
        });
        let (status, body) = api.post(CORE_EVENTS, &event).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(causes(&body).first(), Some(&("reportingComponent".to_owned(), "FieldValueRequired".to_owned())));
        event["reportingComponent"] = json!("example.com/controller");
        let mut created = api.post(CORE_EVENTS, &event).await;
        assert_eq!(created.0, StatusCode::CREATED, "{}", created.1);

        // Through core/v1 an update may change what it likes.
        created.1["reason"] = json!("Changed");
        created.1["message"] = json!("changed");
        let (status, body) = api.put(&format!("{CORE_EVENTS}/new"), &created.1).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    async fn events_v1_updates_change_only_the_series() {
        let api = Api::new();
        let uri = format!("{EVENTS}/hello.2");
        let mut event = api.create(EVENTS, &recorded("hello.2")).await;
        event["series"] = json!({"count": 2, "lastObservedTime": "2026-12-03T10:05:00.000000Z"});
        let (status, updated) = api.put(&uri, &event).await;
        assert_eq!(status, StatusCode::OK, "{updated}");

        let mut changed = updated.clone();
        changed["series"] = json!({"count": 1});
        changed["reason"] = json!("Changed");
        changed["note"] = json!("other");
        changed["regarding"]["name"] = json!("other");
        changed["eventTime"] = json!("2026-12-03T10:00:00.500000Z");
        changed["deprecatedCount"] = json!(4);
        changed["related"] = json!({"kind": "Pod", "name": "web-1"});
        let (status, body) = api.put(&uri, &changed).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Event.events.k8s.io \"hello.2\" is invalid: [series.count: Invalid value: \"\": should be at least 2, \
             series.lastObservedTime: Required value, \
             involvedObject: Invalid value: core.ObjectReference{Kind:\"Greeting\", Namespace:\"default\", Name:\"other\", UID:\"\", APIVersion:\"example.com/v1\", ResourceVersion:\"\", FieldPath:\"\"}: field is immutable, \
             reason: Invalid value: \"Changed\": field is immutable, \
             message: Invalid value: \"other\": field is immutable, \
             count: Invalid value: 4: field is immutable, \
             eventTime: Invalid value: 2026-12-03 10:00:00.5 +0000 UTC: field is immutable, \
             related: Invalid value: core.ObjectReference{Kind:\"Pod\", Namespace:\"\", Name:\"web-1\", UID:\"\", APIVersion:\"\", ResourceVersion:\"\", FieldPath:\"\"}: field is immutable]"
        );
        // The API server checks the reason twice: its causes list both, its message
        // (which drops repeated errors) one.
        let reasons = causes(&body).iter().filter(|(field, _)| field == "reason").count();
        assert_eq!(reasons, 2, "{body}");
        // Taking the related object away shows the nil pointer as Go prints it.
        let mut related = recorded("hello.3");
        related["related"] = json!({"kind": "Pod", "name": "web-1"});
        let mut unrelated = api.create(EVENTS, &related).await;
        unrelated.as_object_mut().unwrap().remove("related");
        let (status, body) = api.put(&format!("{EVENTS}/hello.3"), &unrelated).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Event.events.k8s.io \"hello.3\" is invalid: related: Invalid value: \"null\": field is immutable"
        );
    }
}
