//! `Status` bodies and field-error messages, checked against the API server's exact JSON.

use kube_apigen_core::field::{ErrorType, FieldError, Path};
use kube_apigen_core::{ListMeta, Status, StatusCause, StatusDetails, StatusFields};
use serde_json::json;

fn to_json(status: &Status) -> String {
    serde_json::to_string(status).unwrap()
}

/// Checks the exact wire text, and that it decodes back to the same value.
fn assert_wire(status: &Status, json: &str) {
    assert_eq!(to_json(status), json);
    let back: Status = serde_json::from_str(json).unwrap();
    assert_eq!(&back, status, "decoding {json}");
}

// ---- constructors ----

#[test]
fn not_found() {
    assert_wire(
        &Status::not_found("autoscaling", "horizontalpodautoscalers", "web"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"horizontalpodautoscalers.autoscaling \"web\" not found","reason":"NotFound","details":{"name":"web","group":"autoscaling","kind":"horizontalpodautoscalers"},"code":404}"#,
    );
    // Core group: no group in the message nor in the details.
    assert_wire(
        &Status::not_found("", "pods", "x"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}"#,
    );
}

#[test]
fn already_exists() {
    assert_wire(
        &Status::already_exists("certificates.k8s.io", "certificatesigningrequests", "csr-1"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"certificatesigningrequests.certificates.k8s.io \"csr-1\" already exists","reason":"AlreadyExists","details":{"name":"csr-1","group":"certificates.k8s.io","kind":"certificatesigningrequests"},"code":409}"#,
    );
}

#[test]
fn conflict() {
    assert_wire(
        &Status::conflict("monitoring.coreos.com", "probes", "p", Status::OPTIMISTIC_LOCK_MESSAGE),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on probes.monitoring.coreos.com \"p\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"p","group":"monitoring.coreos.com","kind":"probes"},"code":409}"#,
    );
}

#[test]
fn bad_request_and_unauthorized() {
    assert_wire(
        &Status::bad_request("invalid value \"abc\" for limit"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid value \"abc\" for limit","reason":"BadRequest","code":400}"#,
    );
    assert_wire(
        &Status::unauthorized(""),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not authorized","reason":"Unauthorized","code":401}"#,
    );
    assert_eq!(Status::unauthorized("token expired").message.as_deref(), Some("token expired"));
}

#[test]
fn forbidden_has_three_message_forms() {
    assert_wire(
        &Status::forbidden("", "pods", "x", "User \"bob\" cannot get resource \"pods\""),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" is forbidden: User \"bob\" cannot get resource \"pods\"","reason":"Forbidden","details":{"name":"x","kind":"pods"},"code":403}"#,
    );
    assert_eq!(
        Status::forbidden("apps", "deployments", "", "no").message.as_deref(),
        Some("deployments.apps is forbidden: no")
    );
    let s = Status::forbidden("", "", "", "no");
    assert_eq!(s.message.as_deref(), Some("forbidden: no"));
    assert_eq!(
        to_json(&s),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: no","reason":"Forbidden","details":{},"code":403}"#
    );
}

#[test]
fn method_not_allowed() {
    assert_wire(
        &Status::method_not_allowed("certificates.k8s.io", "certificatesigningrequests", "deletecollection"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deletecollection is not supported on resources of kind \"certificatesigningrequests.certificates.k8s.io\"","reason":"MethodNotAllowed","details":{"group":"certificates.k8s.io","kind":"certificatesigningrequests"},"code":405}"#,
    );
}

#[test]
fn router_answers() {
    assert_wire(
        &Status::route_not_found(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#,
    );
    assert_wire(
        &Status::route_method_not_allowed(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}"#,
    );
}

#[test]
fn gone_and_expired() {
    assert_wire(
        &Status::gone("gone away"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gone away","reason":"Gone","code":410}"#,
    );
    assert_wire(
        &Status::too_old_resource_version(5, 17),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (17)","reason":"Expired","code":410}"#,
    );
    assert_eq!(Status::expired("x").reason.as_deref(), Some("Expired"));
}

#[test]
fn request_entity_too_large() {
    assert_wire(
        &Status::request_entity_too_large("limit is 3145728"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}"#,
    );
}

#[test]
fn unsupported_media_type_and_not_acceptable() {
    assert_wire(
        &Status::unsupported_media_type(&[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
        ]),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}"#,
    );
    assert_wire(
        &Status::not_acceptable(&["application/json", "application/yaml"]),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml","reason":"NotAcceptable","code":406}"#,
    );
}

#[test]
fn internal_error() {
    assert_wire(
        &Status::internal_error("store is closed"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: store is closed","reason":"InternalError","details":{"causes":[{"message":"store is closed"}]},"code":500}"#,
    );
}

#[test]
fn success_and_deleted() {
    assert_wire(&Status::success(), r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}"#);
    assert_wire(
        &Status::deleted(
            "certificates.k8s.io",
            "certificatesigningrequests",
            "csr-1",
            "0b6c3c1e-8d8b-4c7e-9f5e-2f1b1a7c9d00",
        ),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"csr-1","group":"certificates.k8s.io","kind":"certificatesigningrequests","uid":"0b6c3c1e-8d8b-4c7e-9f5e-2f1b1a7c9d00"}}"#,
    );
    assert_eq!(Status::success().code(), 200);
    assert!(Status::success().is_success());
}

// ---- Invalid ----

fn hpa_errors() -> Vec<FieldError> {
    let spec = Path::ROOT.field("spec");
    let max = spec.field("maxReplicas");
    let target = spec.field("scaleTargetRef");
    let name = target.field("name");
    vec![FieldError::invalid(&max, 1, "must be greater than or equal to 2"), FieldError::required(&name, "")]
}

#[test]
fn invalid_with_two_errors() {
    assert_wire(
        &Status::invalid("HorizontalPodAutoscaler", "autoscaling", "web", &hpa_errors()),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"HorizontalPodAutoscaler.autoscaling \"web\" is invalid: [spec.maxReplicas: Invalid value: 1: must be greater than or equal to 2, spec.scaleTargetRef.name: Required value]","reason":"Invalid","details":{"name":"web","group":"autoscaling","kind":"HorizontalPodAutoscaler","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 1: must be greater than or equal to 2","field":"spec.maxReplicas"},{"reason":"FieldValueRequired","message":"Required value","field":"spec.scaleTargetRef.name"}]},"code":422}"#,
    );
}

#[test]
fn invalid_with_one_error_has_no_brackets() {
    let errors = &hpa_errors()[1..];
    let status = Status::invalid("HorizontalPodAutoscaler", "autoscaling", "web", errors);
    assert_eq!(
        status.message.as_deref(),
        Some("HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.scaleTargetRef.name: Required value")
    );
    assert_eq!(status.to_string(), status.message.clone().unwrap());
}

#[test]
fn invalid_with_no_errors() {
    assert_wire(
        &Status::invalid("Probe", "monitoring.coreos.com", "p", &[]),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Probe.monitoring.coreos.com \"p\" is invalid","reason":"Invalid","details":{"name":"p","group":"monitoring.coreos.com","kind":"Probe"},"code":422}"#,
    );
}

#[test]
fn invalid_core_group_kind() {
    let errors = [FieldError::invalid(
        &Path::ROOT.field("metadata").field("name"),
        "Bad_Name",
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
    )];
    assert_wire(
        &Status::invalid("Pod", "", "Bad_Name", &errors),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters","reason":"Invalid","details":{"name":"Bad_Name","kind":"Pod","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters","field":"metadata.name"}]},"code":422}"#,
    );
}

#[test]
fn invalid_dedups_repeated_messages_but_keeps_every_cause() {
    let spec = Path::ROOT.field("spec");
    let a = spec.field("a");
    let b = spec.field("b");
    let errors = [FieldError::required(&a, ""), FieldError::required(&b, ""), FieldError::required(&a, "")];
    let status = Status::invalid("Thing", "example.com", "t", &errors);
    assert_eq!(
        status.message.as_deref(),
        Some("Thing.example.com \"t\" is invalid: [spec.a: Required value, spec.b: Required value]")
    );
    assert_eq!(status.details.as_ref().unwrap().causes.len(), 3);
    // When every error repeats the first, one remains and it is not bracketed.
    let status = Status::invalid("Thing", "example.com", "t", &[errors[0].clone(), errors[2].clone()]);
    assert_eq!(status.message.as_deref(), Some("Thing.example.com \"t\" is invalid: spec.a: Required value"));
}

#[test]
fn names_are_go_quoted_in_messages() {
    assert_eq!(
        Status::not_found("", "configmaps", "a\"b\\c\n").message.as_deref(),
        Some(r#"configmaps "a\"b\\c\n" not found"#)
    );
}

// ---- code(), Display, decoding ----

#[test]
fn code_falls_back_like_the_api_server() {
    assert_eq!(Status::not_found("", "pods", "x").code(), 404);
    assert_eq!(Status::default().code(), 500);
    let odd = Status::from(StatusFields { code: Some(42), ..StatusFields::default() });
    assert_eq!(odd.code(), 500);
    assert_eq!(Status::failure(429, "TooManyRequests", "slow down").code(), 429);
}

#[test]
fn display_and_error() {
    let s = Status::bad_request("nope");
    assert_eq!(s.to_string(), "nope");
    let boxed: Box<dyn std::error::Error> = Box::new(s);
    assert_eq!(boxed.to_string(), "nope");
    let s = Status::from(StatusFields { reason: Some("Teapot".into()), ..StatusFields::default() });
    assert_eq!(s.to_string(), "Teapot");
    assert_eq!(Status::default().to_string(), "status code 500");
}

#[test]
fn empty_status_still_has_kind_api_version_and_metadata() {
    assert_eq!(to_json(&Status::default()), r#"{"kind":"Status","apiVersion":"v1","metadata":{}}"#);
}

#[test]
fn decodes_what_real_servers_send() {
    let json = r#"{"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":"12"},"status":"Failure","message":"m","reason":"Conflict","details":{"name":"n","kind":"pods","causes":[{"reason":"FieldManagerConflict","message":"conflict with \"kubectl\"","field":".spec.replicas"}],"retryAfterSeconds":3},"code":409,"extra":true}"#;
    let status: Status = serde_json::from_str(json).unwrap();
    assert_eq!(
        status,
        Status::from(StatusFields {
            metadata: ListMeta { resource_version: Some("12".into()), ..ListMeta::default() },
            status: Some("Failure".into()),
            message: Some("m".into()),
            reason: Some("Conflict".into()),
            details: Some(StatusDetails {
                name: Some("n".into()),
                kind: Some("pods".into()),
                causes: vec![StatusCause {
                    reason: Some("FieldManagerConflict".into()),
                    message: Some("conflict with \"kubectl\"".into()),
                    field: Some(".spec.replicas".into()),
                }],
                retry_after_seconds: Some(3),
                ..StatusDetails::default()
            }),
            code: Some(409),
        })
    );
    // Without metadata, kind or apiVersion.
    let status: Status = serde_json::from_str(r#"{"status":"Success"}"#).unwrap();
    assert_eq!(status, Status::success());
}

#[test]
fn list_meta_wire_names() {
    let meta = ListMeta {
        self_link: None,
        resource_version: Some("42".into()),
        continue_: Some("token".into()),
        remaining_item_count: Some(0),
    };
    let json = serde_json::to_string(&meta).unwrap();
    assert_eq!(json, r#"{"resourceVersion":"42","continue":"token","remainingItemCount":0}"#);
    assert_eq!(serde_json::from_str::<ListMeta>(&json).unwrap(), meta);
    assert_eq!(serde_json::to_string(&ListMeta::default()).unwrap(), "{}");
    assert!(ListMeta::default().is_empty());
    assert!(!meta.is_empty());
}

// ---- field error messages ----

#[test]
fn field_error_constructors_use_the_kubernetes_texts() {
    let spec = Path::ROOT.field("spec");
    let policy = spec.field("policy");
    let usages = spec.field("usages");
    let second = usages.index(1);
    let labels = Path::ROOT.field("metadata");
    let labels = labels.field("labels");
    let app = labels.key("app");
    let cases = [
        (FieldError::required(&spec.field("signerName"), ""), "spec.signerName: Required value"),
        (FieldError::required(&spec.field("request"), "must be set"), "spec.request: Required value: must be set"),
        (
            FieldError::invalid(
                &spec.field("expirationSeconds"),
                599,
                "may not specify a duration less than 600 seconds (10 minutes)",
            ),
            "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)",
        ),
        (
            FieldError::not_supported(&policy, "Sometimes", &["Always", "Never"]),
            r#"spec.policy: Unsupported value: "Sometimes": supported values: "Always", "Never""#,
        ),
        (FieldError::not_supported(&policy, "x", &[]), r#"spec.policy: Unsupported value: "x""#),
        (
            FieldError::duplicate(&second, "digital signature"),
            r#"spec.usages[1]: Duplicate value: "digital signature""#,
        ),
        (
            FieldError::too_long(&app, "a".repeat(64), 63),
            "metadata.labels[app]: Too long: may not be more than 63 bytes",
        ),
        (FieldError::too_long(&app, "ab", 1), "metadata.labels[app]: Too long: may not be more than 1 byte"),
        (
            FieldError::too_long_characters(&app, "ab", 1),
            "metadata.labels[app]: Too long: may not be more than 1 character",
        ),
        (FieldError::too_many(&usages, 12, 10), "spec.usages: Too many: 12: must have at most 10 items"),
        (FieldError::too_many(&usages, 2, 1), "spec.usages: Too many: 2: must have at most 1 item"),
        (
            FieldError::forbidden(&spec.field("signerName"), "may not be changed"),
            "spec.signerName: Forbidden: may not be changed",
        ),
        (FieldError::not_found(&spec.field("ref"), "web"), r#"spec.ref: Not found: "web""#),
        (
            FieldError::type_invalid(&spec.field("replicas"), "3", "must be of type integer"),
            r#"spec.replicas: Invalid value: "3": must be of type integer"#,
        ),
        (FieldError::internal(&spec, "boom"), "spec: Internal error: boom"),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
    assert_eq!(FieldError::required(&spec, "").error_type, ErrorType::Required);
}

#[test]
fn field_error_values_render_like_go() {
    let p = Path::ROOT.field("v");
    let body = |value: serde_json::Value| FieldError::invalid(&p, value, "d").body();
    assert_eq!(body(json!(true)), "Invalid value: true: d");
    assert_eq!(body(json!(-5)), "Invalid value: -5: d");
    // Beyond int64, a number is a float64, as Kubernetes decodes JSON numbers.
    assert_eq!(body(json!(18446744073709551615u64)), "Invalid value: 1.8446744073709552e+19: d");
    // float64 with %v: shortest digits, exponent from 1e+06 and below 1e-04.
    assert_eq!(body(json!(1.0)), "Invalid value: 1: d");
    assert_eq!(body(json!(0.5)), "Invalid value: 0.5: d");
    assert_eq!(body(json!(123456.0)), "Invalid value: 123456: d");
    assert_eq!(body(json!(1000000.0)), "Invalid value: 1e+06: d");
    assert_eq!(body(json!(1234567.0)), "Invalid value: 1.234567e+06: d");
    assert_eq!(body(json!(0.0001)), "Invalid value: 0.0001: d");
    assert_eq!(body(json!(0.00001)), "Invalid value: 1e-05: d");
    assert_eq!(body(json!(-2.5e-300)), "Invalid value: -2.5e-300: d");
    assert_eq!(body(json!(0.0)), "Invalid value: 0: d");
    // Strings as %q.
    assert_eq!(body(json!("a\"b")), r#"Invalid value: "a\"b": d"#);
    // null, arrays and objects as Go's json.Marshal writes them.
    assert_eq!(body(json!(null)), "Invalid value: null: d");
    assert_eq!(body(json!(["a", 1, 2.0, 1e21, 1e-7])), r#"Invalid value: ["a",1,2,1e+21,1e-7]: d"#);
    assert_eq!(body(json!({"b": "<&>", "a": [true]})), r#"Invalid value: {"a":[true],"b":"\u003c\u0026\u003e"}: d"#);
    // An error without a value shows none.
    let e = FieldError::new(&p, ErrorType::Invalid, None, "d");
    assert_eq!(e.body(), "Invalid value: d");
}

#[test]
fn cause_from_field_error() {
    let e = FieldError::invalid(&Path::ROOT.field("spec").field("x"), "y", "bad");
    assert_eq!(
        serde_json::to_value(StatusCause::from(&e)).unwrap(),
        json!({"reason": "FieldValueInvalid", "message": "Invalid value: \"y\": bad", "field": "spec.x"})
    );
}
