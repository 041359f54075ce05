//! Generated validation of the real seed APIs (`specs/`): the limits Kubernetes puts on a
//! HorizontalPodAutoscaler (`autoscaling/v2`), a CertificateSigningRequest
//! (`certificates.k8s.io/v1`) and DeleteOptions, each rejected at the right path with the
//! exact error; realistic valid objects (`tests/fixtures/validation/`) give none.

mod common;

use common::put;
use generated::api::autoscaling::v2::HorizontalPodAutoscaler;
use generated::api::certificates::v1::CertificateSigningRequest;
use generated::apimachinery::pkg::apis::meta::v1::DeleteOptions;
use kube_apigen::field::{ErrorList, ErrorType};
use kube_apigen::{Resource, Status, Validate};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use ErrorType::{Forbidden, Invalid, NotSupported, Required};

// ---- Helpers ----

/// A fixture of `tests/fixtures/validation/`.
fn fixture(name: &str) -> Value {
    common::fixture(&format!("validation/{name}"))
}

/// Decodes from JSON text, as a request body.
fn decode<T: DeserializeOwned>(doc: &Value) -> T {
    serde_json::from_str(&doc.to_string()).unwrap_or_else(|e| panic!("decoding {doc}: {e}"))
}

/// A fixture with `edits` (pointer, value) applied, decoded.
fn edited<T: DeserializeOwned>(name: &str, edits: &[(&str, Value)]) -> T {
    let mut doc = fixture(name);
    for (pointer, value) in edits {
        put(&mut doc, pointer, value.clone());
    }
    decode(&doc)
}

fn hpa(edits: &[(&str, Value)]) -> HorizontalPodAutoscaler {
    edited("hpa.json", edits)
}

fn csr(edits: &[(&str, Value)]) -> CertificateSigningRequest {
    edited("csr.json", edits)
}

#[track_caller]
fn assert_errors(context: &str, errors: &ErrorList, expected: &[(ErrorType, &str)]) {
    let actual: Vec<(ErrorType, String)> = errors.iter().map(|e| (e.error_type, e.to_string())).collect();
    let expected: Vec<(ErrorType, String)> = expected.iter().map(|(t, s)| (*t, (*s).to_owned())).collect();
    assert_eq!(actual, expected, "{context}");
}

// ---- Valid objects ----

#[test]
fn realistic_hpa_is_valid() {
    let object: HorizontalPodAutoscaler = decode(&fixture("hpa.json"));
    // The fixture exercises every metric source and both scaling directions.
    let spec = &object.spec;
    assert_eq!(spec.metrics.as_ref().map(Vec::len), Some(5));
    assert!(spec.behavior.as_ref().and_then(|b| b.scale_up.as_ref()).is_some_and(|up| up.tolerance.is_some()));
    assert_errors("validate", &object.validate(), &[]);
    assert_errors("validate_update", &object.validate_update(&object.clone()), &[]);
}

#[test]
fn realistic_csr_is_valid() {
    let object: CertificateSigningRequest = decode(&fixture("csr.json"));
    assert!(object.spec.request.0.starts_with(b"-----BEGIN CERTIFICATE REQUEST-----"));
    assert_errors("validate", &object.validate(), &[]);
    assert_errors("validate_update", &object.validate_update(&object.clone()), &[]);
}

// ---- CertificateSigningRequest ----

#[test]
fn csr_expiration_seconds_is_at_least_600() {
    assert_errors(
        "599",
        &csr(&[("/spec/expirationSeconds", json!(599))]).validate(),
        &[(Invalid, "spec.expirationSeconds: Invalid value: 599: must be greater than or equal to 600")],
    );
    assert_errors("600", &csr(&[("/spec/expirationSeconds", json!(600))]).validate(), &[]);
}

#[test]
fn csr_usages_are_an_enum() {
    assert_errors(
        "unknown usage",
        &csr(&[("/spec/usages", json!(["digital signature", "time travel", "client auth"]))]).validate(),
        &[(
            NotSupported,
            r#"spec.usages[1]: Unsupported value: "time travel": supported values: "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc""#,
        )],
    );
}

#[test]
fn csr_required_fields_and_cluster_scope() {
    assert_errors(
        "empty request and signer, namespace on a cluster-scoped object",
        &csr(&[
            ("/spec/request", json!("")),
            ("/spec/signerName", Value::Null),
            ("/metadata/namespace", json!("default")),
        ])
        .validate(),
        &[
            (Forbidden, "metadata.namespace: Forbidden: not allowed on this type"),
            (Required, "spec.request: Required value"),
            (Required, "spec.signerName: Required value"),
        ],
    );
}

#[test]
fn csr_status_rules() {
    assert_errors(
        "Denied with status False, next to Approved",
        &csr(&[("/status/conditions/1", json!({"type": "Denied", "status": "False", "reason": "Nope"}))]).validate(),
        &[
            (
                Invalid,
                r#"status.conditions[1].status: Invalid value: "object": Approved, Denied and Failed conditions must have status True"#,
            ),
            (
                Invalid,
                r#"status.conditions: Invalid value: "object": Approved and Denied conditions are mutually exclusive"#,
            ),
        ],
    );
}

#[test]
fn csr_names_are_not_restricted() {
    assert_errors(
        "kubelet-style name",
        &csr(&[("/metadata/name", json!("node-csr-1fV2eXdVqkYNcZ6S1sNuLj5o8rC2nB8d_KdRmJ4ZsZE"))]).validate(),
        &[],
    );
    // A name is still required.
    assert_errors(
        "no name",
        &csr(&[("/metadata/name", Value::Null)]).validate(),
        &[(Required, "metadata.name: Required value: name or generateName is required")],
    );
}

// ---- HorizontalPodAutoscaler ----

#[test]
fn hpa_min_replicas_is_at_least_1() {
    assert_errors(
        "minReplicas 0",
        &hpa(&[("/spec/minReplicas", json!(0))]).validate(),
        &[(Invalid, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1")],
    );
    assert_errors("minReplicas 1", &hpa(&[("/spec/minReplicas", json!(1))]).validate(), &[]);
}

#[test]
fn hpa_max_replicas_is_at_least_min_replicas() {
    assert_errors(
        "maxReplicas 2 < minReplicas 3",
        &hpa(&[("/spec/maxReplicas", json!(2))]).validate(),
        &[(
            Invalid,
            r#"spec.maxReplicas: Invalid value: "object": maxReplicas must be greater than or equal to minReplicas"#,
        )],
    );
    assert_errors("maxReplicas == minReplicas", &hpa(&[("/spec/maxReplicas", json!(3))]).validate(), &[]);
    // Without minReplicas the rule holds; maxReplicas still has its own bound.
    let mut doc = fixture("hpa.json");
    doc["spec"].as_object_mut().expect("spec").remove("minReplicas");
    put(&mut doc, "/spec/maxReplicas", json!(0));
    assert_errors(
        "maxReplicas 0 alone",
        &decode::<HorizontalPodAutoscaler>(&doc).validate(),
        &[(Invalid, "spec.maxReplicas: Invalid value: 0: must be greater than or equal to 1")],
    );
}

#[test]
fn hpa_policy_period_is_1_to_1800_seconds() {
    assert_errors(
        "periodSeconds 0 and 1801",
        &hpa(&[
            ("/spec/behavior/scaleUp/policies/1/periodSeconds", json!(0)),
            ("/spec/behavior/scaleDown/policies/0/periodSeconds", json!(1801)),
        ])
        .validate(),
        &[
            (
                Invalid,
                "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
            ),
            (
                Invalid,
                "spec.behavior.scaleUp.policies[1].periodSeconds: Invalid value: 0: must be greater than or equal to 1",
            ),
        ],
    );
    assert_errors(
        "periodSeconds 1 and 1800",
        &hpa(&[
            ("/spec/behavior/scaleUp/policies/1/periodSeconds", json!(1)),
            ("/spec/behavior/scaleDown/policies/0/periodSeconds", json!(1800)),
        ])
        .validate(),
        &[],
    );
}

#[test]
fn hpa_stabilization_window_is_0_to_3600_seconds() {
    assert_errors(
        "3601",
        &hpa(&[("/spec/behavior/scaleDown/stabilizationWindowSeconds", json!(3601))]).validate(),
        &[(
            Invalid,
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        )],
    );
    assert_errors(
        "-1",
        &hpa(&[("/spec/behavior/scaleUp/stabilizationWindowSeconds", json!(-1))]).validate(),
        &[(
            Invalid,
            "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to 0",
        )],
    );
    assert_errors(
        "3600",
        &hpa(&[("/spec/behavior/scaleDown/stabilizationWindowSeconds", json!(3600))]).validate(),
        &[],
    );
}

#[test]
fn hpa_policy_value_is_positive_and_type_known() {
    assert_errors(
        "value 0, unknown type",
        &hpa(&[
            ("/spec/behavior/scaleUp/policies/0/value", json!(0)),
            ("/spec/behavior/scaleUp/policies/0/type", json!("Nodes")),
            ("/spec/behavior/scaleUp/selectPolicy", json!("Maximum")),
        ])
        .validate(),
        &[
            (
                NotSupported,
                r#"spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Pods", "Percent""#,
            ),
            (Invalid, "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than 0"),
            (
                NotSupported,
                r#"spec.behavior.scaleUp.selectPolicy: Unsupported value: "Maximum": supported values: "Max", "Min", "Disabled""#,
            ),
        ],
    );
}

#[test]
fn hpa_tolerance_is_not_negative() {
    assert_errors(
        "tolerance -50m",
        &hpa(&[("/spec/behavior/scaleUp/tolerance", json!("-50m"))]).validate(),
        &[(
            Invalid,
            r#"spec.behavior.scaleUp.tolerance: Invalid value: "object": tolerance must be greater than or equal to zero"#,
        )],
    );
}

#[test]
fn hpa_metric_target_type_is_an_enum() {
    assert_errors(
        "unknown target type",
        &hpa(&[("/spec/metrics/0/resource/target/type", json!("Percentage"))]).validate(),
        &[(
            NotSupported,
            r#"spec.metrics[0].resource.target.type: Unsupported value: "Percentage": supported values: "Utilization", "Value", "AverageValue""#,
        )],
    );
    assert_errors(
        "unknown metric source type",
        &hpa(&[("/spec/metrics/2/type", json!("Custom"))]).validate(),
        &[(
            NotSupported,
            r#"spec.metrics[2].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource""#,
        )],
    );
}

#[test]
fn hpa_metric_rules() {
    assert_errors(
        "target type without its value; source not matching the type; two sources",
        &hpa(&[
            ("/spec/metrics/0/resource/target", json!({"type": "Utilization"})),
            ("/spec/metrics/2/type", json!("External")),
            ("/spec/metrics/3/pods", json!({"metric": {"name": "m"}, "target": {"type": "Value", "value": "1"}})),
        ])
        .validate(),
        &[
            (
                Invalid,
                r#"spec.metrics[0].resource.target.averageUtilization: Invalid value: "object": averageUtilization must be set when type is Utilization"#,
            ),
            (Invalid, r#"spec.metrics[2]: Invalid value: "object": the source field named by type must be set"#),
            (Invalid, r#"spec.metrics[3]: Invalid value: "object": only the source field named by type may be set"#),
        ],
    );
}

#[test]
fn hpa_scale_target_ref_names_kind_and_name() {
    assert_errors(
        "empty scaleTargetRef",
        &hpa(&[("/spec/scaleTargetRef", json!({}))]).validate(),
        &[
            (Required, "spec.scaleTargetRef.kind: Required value"),
            (Required, "spec.scaleTargetRef.name: Required value"),
        ],
    );
}

#[test]
fn hpa_errors_are_all_collected_into_one_status() {
    let object = hpa(&[
        ("/metadata/name", json!("Checkout API")),
        ("/spec/minReplicas", json!(0)),
        ("/spec/behavior/scaleUp/policies/0/periodSeconds", json!(0)),
        ("/spec/behavior/scaleDown/stabilizationWindowSeconds", json!(3601)),
        ("/spec/metrics/1/resource/target/type", json!("Average")),
    ]);
    let errors = object.validate();
    let name_error = "metadata.name: Invalid value: \"Checkout API\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let expected = [
        (Invalid, name_error),
        (
            Invalid,
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        ),
        (
            Invalid,
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than or equal to 1",
        ),
        (
            NotSupported,
            r#"spec.metrics[1].resource.target.type: Unsupported value: "Average": supported values: "Utilization", "Value", "AverageValue""#,
        ),
        (Invalid, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"),
    ];
    assert_errors("five broken rules", &errors, &expected);

    let name = object.metadata.as_ref().and_then(|m| m.name.as_deref()).unwrap_or_default();
    let status =
        Status::invalid(HorizontalPodAutoscaler::INFO.kind, HorizontalPodAutoscaler::INFO.group, name, &errors);
    let lines: Vec<&str> = expected.iter().map(|(_, line)| *line).collect();
    assert_eq!(
        status.to_string(),
        format!(r#"HorizontalPodAutoscaler.autoscaling "Checkout API" is invalid: [{}]"#, lines.join(", "))
    );
    let wire = serde_json::to_value(&status).expect("Status encodes");
    assert_eq!(wire["code"], json!(422));
    assert_eq!(wire["reason"], json!("Invalid"));
    assert_eq!(wire["details"]["kind"], json!("HorizontalPodAutoscaler"));
    assert_eq!(wire["details"]["group"], json!("autoscaling"));
    assert_eq!(wire["details"]["name"], json!("Checkout API"));
    assert_eq!(
        wire["details"]["causes"][4],
        json!({
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 0: must be greater than or equal to 1",
            "field": "spec.minReplicas"
        })
    );
    assert_eq!(wire["details"]["causes"].as_array().map(Vec::len), Some(5));
}

// ---- DeleteOptions ----

#[test]
fn delete_options_cannot_orphan_and_propagate() {
    let both: DeleteOptions = decode(&json!({
        "kind": "DeleteOptions",
        "apiVersion": "v1",
        "orphanDependents": false,
        "propagationPolicy": "Foreground"
    }));
    // The rule in specs/ reports at `.propagationPolicy`, where Kubernetes' own check does.
    let errors = both.validate();
    assert_errors(
        "both set",
        &errors,
        &[(
            Invalid,
            r#"propagationPolicy: Invalid value: "object": orphanDependents and propagationPolicy cannot both be set"#,
        )],
    );
    assert_eq!(errors[0].field, "propagationPolicy");
    assert_eq!(errors[0].detail, "orphanDependents and propagationPolicy cannot both be set");

    for one in [json!({"orphanDependents": true}), json!({"propagationPolicy": "Background"}), json!({})] {
        assert_errors(&one.to_string(), &decode::<DeleteOptions>(&one).validate(), &[]);
    }
    assert_errors(
        "unknown policy and negative grace period",
        &decode::<DeleteOptions>(
            &json!({"propagationPolicy": "Later", "gracePeriodSeconds": -1, "dryRun": ["All", "Some"]}),
        )
        .validate(),
        &[
            (NotSupported, r#"dryRun[1]: Unsupported value: "Some": supported values: "All""#),
            (Invalid, "gracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0"),
            (
                NotSupported,
                r#"propagationPolicy: Unsupported value: "Later": supported values: "Orphan", "Background", "Foreground""#,
            ),
        ],
    );
}

// ---- The CEL-free copy the benchmark compares with ----

#[test]
fn cel_free_autoscaler_copy_checks_the_same_keywords() {
    use fixture_api::api::fixture::v1::Autoscaler;
    // tests/benches/validate.rs decodes the HPA fixture into this copy of the HPA schema
    // without CEL rules: it must be valid there too, and break the same keyword rules.
    let copy: Autoscaler = decode(&fixture("hpa.json"));
    assert_errors("valid copy", &copy.validate(), &[]);
    let edits = [
        ("/spec/behavior/scaleDown/stabilizationWindowSeconds", json!(3601)),
        ("/spec/behavior/scaleUp/policies/0/periodSeconds", json!(1801)),
        ("/spec/metrics/1/resource/target/type", json!("Average")),
        // Caught only by the real type's CEL rule.
        ("/spec/maxReplicas", json!(2)),
    ];
    let keyword_errors = [
        (
            Invalid,
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        ),
        (
            Invalid,
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
        ),
        (
            NotSupported,
            r#"spec.metrics[1].resource.target.type: Unsupported value: "Average": supported values: "Utilization", "Value", "AverageValue""#,
        ),
    ];
    assert_errors("copy", &edited::<Autoscaler>("hpa.json", &edits).validate(), &keyword_errors);
    let mut with_cel = keyword_errors.to_vec();
    with_cel.push((
        Invalid,
        r#"spec.maxReplicas: Invalid value: "object": maxReplicas must be greater than or equal to minReplicas"#,
    ));
    assert_errors("real type", &hpa(&edits).validate(), &with_cel);
}
