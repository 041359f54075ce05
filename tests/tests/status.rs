//! `meta.k8s.io/v1` Status error bodies: decoded into `kube_apigen::Status` and re-encoded to
//! equal JSON.

mod common;

use common::{assert_json_eq, fixture, round_trip};
use kube_apigen::{Status, StatusCause};
use serde_json::json;

#[test]
fn invalid_status_round_trips_to_equal_json() {
    let input = fixture("status-invalid.json");
    let (status, output) = round_trip::<Status>("status-invalid.json", &input);
    assert_json_eq("status-invalid.json re-encoded", &input, &output);

    assert_eq!(status.status.as_deref(), Some(Status::FAILURE));
    assert!(!status.is_success());
    assert_eq!(status.reason.as_deref(), Some("Invalid"));
    assert_eq!(status.code, Some(422));
    assert_eq!(status.code(), 422);
    assert!(status.metadata.is_empty());
    assert!(status.to_string().starts_with(r#"HorizontalPodAutoscaler.autoscaling "web" is invalid: ["#));

    let details = status.details.as_ref().expect("details");
    assert_eq!(details.name.as_deref(), Some("web"));
    assert_eq!(details.group.as_deref(), Some("autoscaling"));
    assert_eq!(details.kind.as_deref(), Some("HorizontalPodAutoscaler"));
    assert_eq!((&details.uid, details.retry_after_seconds), (&None, None));
    assert_eq!(
        details.causes,
        [
            StatusCause {
                reason: Some("FieldValueInvalid".into()),
                message: Some("Invalid value: 0: must be greater than or equal to 1".into()),
                field: Some("spec.maxReplicas".into()),
            },
            StatusCause {
                reason: Some("FieldValueInvalid".into()),
                message: Some("Invalid value: 0: must be greater than 0".into()),
                field: Some("spec.metrics[0].resource.target.averageUtilization".into()),
            },
        ]
    );
}

#[test]
fn expired_status_with_list_metadata_round_trips_to_equal_json() {
    let input = fixture("status-gone.json");
    let (status, output) = round_trip::<Status>("status-gone.json", &input);
    assert_json_eq("status-gone.json re-encoded", &input, &output);

    assert_eq!((status.reason.as_deref(), status.code()), (Some("Expired"), 410));
    assert_eq!(status.details, None);
    assert_eq!(status.metadata.resource_version.as_deref(), Some("48224310"));
    assert!(status.metadata.continue_.as_deref().is_some_and(|c| c.starts_with("eyJ2Ij")));
}

#[test]
fn status_kind_and_api_version_are_fixed_on_output() {
    // A Status decoded from a body without kind/apiVersion (as some proxies answer) is
    // written with them: they are constants, not fields.
    let input = json!({"status": "Failure", "message": "boom", "reason": "InternalError", "code": 500});
    let (_, output): (Status, _) = round_trip("bare status", &input);
    assert_json_eq(
        "bare status re-encoded",
        &json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "boom",
            "reason": "InternalError",
            "code": 500
        }),
        &output,
    );
}
