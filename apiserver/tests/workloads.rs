//! Pods, deployments and replica sets through the generated router, in process: what the
//! API server's code adds to their specs (defaults, a new pod's status, the checks of a
//! workload's selector and template), with its wording.

mod harness;

use harness::Api;
use kube_apigen::axum::http::StatusCode;
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";
const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";
const REPLICA_SETS: &str = "/apis/apps/v1/namespaces/default/replicasets";

/// A workload of `kind` running `image`, its pods labelled `app: web`.
fn workload(kind: &str, name: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web", "tier": "front"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
            }
        }
    })
}

harness::backend_tests! {
    async fn a_new_pod_is_pending_with_the_api_servers_defaults() {
        let api = Api::new();
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"containers": [{
                "name": "web", "image": "nginx",
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}
            }]},
            "status": {"phase": "Running"}
        });
        let created = api.create(PODS, &pod).await;
        assert_eq!(created["status"], json!({"phase": "Pending", "qosClass": "Guaranteed"}));
        let container = &created["spec"]["containers"][0];
        assert_eq!(container["imagePullPolicy"], "Always");
        assert_eq!(container["resources"]["requests"], json!({"cpu": "500m", "memory": "128Mi"}));
        assert_eq!(created["spec"]["terminationGracePeriodSeconds"], 30);
        assert_eq!(created["spec"]["enableServiceLinks"], true);
    }

    async fn a_workload_selects_its_templates_labels() {
        let api = Api::new();
        let created = api.create(DEPLOYMENTS, &workload("Deployment", "web")).await;
        assert_eq!(created["spec"]["replicas"], 1);
        assert_eq!(created["spec"]["template"]["spec"]["restartPolicy"], "Always");
        // The template of a workload is no pod: it gets no pod-only defaults.
        assert_eq!(created["spec"]["template"]["spec"].get("enableServiceLinks"), None);

        let mut other = workload("Deployment", "other");
        other["spec"]["selector"] = json!({"matchLabels": {"app": "api"}});
        other["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
        let (status, body) = api.post(DEPLOYMENTS, &other).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "Deployment.apps \"other\" is invalid: [spec.template.metadata.labels: Invalid value: \
             map[string]string{\"app\":\"web\", \"tier\":\"front\"}: `selector` does not match template `labels`, \
             spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"]"
        );

        // A strategy that is no object is the spec's error, not the defaults' panic.
        let mut odd = workload("Deployment", "odd");
        odd["spec"]["strategy"] = json!(5);
        let (status, body) = api.post(DEPLOYMENTS, &odd).await;
        assert!(status.is_client_error(), "{status} {body}");
        assert_eq!(body["kind"], "Status", "{body}");

        let mut empty = workload("ReplicaSet", "empty");
        empty["spec"]["selector"] = json!({});
        let (status, body) = api.post(REPLICA_SETS, &empty).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "ReplicaSet.apps \"empty\" is invalid: spec.selector: Invalid value: \
             v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: \
             empty selector is invalid for deployment"
        );
    }

    async fn a_workloads_selector_is_immutable() {
        let api = Api::new();
        let mut created = api.create(REPLICA_SETS, &workload("ReplicaSet", "web")).await;
        created["spec"]["selector"] = json!({
            "matchLabels": {"tier": "front"},
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]
        });
        let (status, body) = api.put(&format!("{REPLICA_SETS}/web"), &created).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["message"],
            "ReplicaSet.apps \"web\" is invalid: spec.selector: Invalid value: \
             v1.LabelSelector{MatchLabels:map[string]string{\"tier\":\"front\"}, \
             MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"app\", Operator:\"In\", \
             Values:[]string{\"web\"}}}}: field is immutable"
        );
        // The replicas may change, the selector staying.
        let (_, mut stored) = api.get(&format!("{REPLICA_SETS}/web")).await;
        stored["spec"]["replicas"] = json!(3);
        let (status, body) = api.put(&format!("{REPLICA_SETS}/web"), &stored).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
}
