//! The wire encodings Kubernetes clients meet beyond well-formed fixtures: enum values newer
//! than this API version, `null` in place of a value, quantities sent as JSON numbers,
//! timestamps with fractions or offsets, int-or-string, and base64 with line breaks.
//!
//! Every test states what the input decodes to and what it re-encodes as.

mod common;

use common::{assert_json_eq, decode_err, decode_value, fixture, remove, replace, round_trip, time};
use generated::api::autoscaling::v2::{
    HPAScalingPolicyType, HPAScalingRulesSelectPolicy, HorizontalPodAutoscaler, HorizontalPodAutoscalerConditionStatus,
    HorizontalPodAutoscalerConditionType, HorizontalPodAutoscalerList, MetricSpec, MetricSpecType, MetricStatusType,
    MetricTargetType,
};
use generated::api::certificates::v1::{
    CertificateSigningRequest, CertificateSigningRequestConditionType, CertificateSigningRequestSpecUsagesItem as Usage,
};
use kube_apigen::{Bytes, IntOrString, MicroTime, Quantity, Time};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Enum values this version does not know
// ---------------------------------------------------------------------------------------

#[test]
fn unknown_hpa_enum_values_survive_a_round_trip() {
    let mut input = fixture("hpa.json");
    input["spec"]["metrics"].as_array_mut().unwrap().push(json!({"type": "FutureMetric"}));
    replace(&mut input, "/spec/metrics/0/resource/target/type", json!("Percentile"));
    replace(&mut input, "/spec/behavior/scaleUp/selectPolicy", json!("Median"));
    replace(&mut input, "/spec/behavior/scaleDown/policies/0/type", json!("Replicas"));
    input["status"]["currentMetrics"].as_array_mut().unwrap().push(json!({"type": "FutureMetric"}));
    replace(&mut input, "/status/conditions/0/type", json!("ScalingThrottled"));
    replace(&mut input, "/status/conditions/0/status", json!("Maybe"));

    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("unknown enums", &input);
    assert_json_eq("unknown enums re-encoded", &input, &output);

    let metrics = hpa.spec.metrics.as_ref().unwrap();
    let future = &metrics[5].type_;
    assert_eq!(future, &MetricSpecType::Other("FutureMetric".into()));
    assert!(!future.is_known());
    assert_eq!((future.as_str(), future.to_string().as_str()), ("FutureMetric", "FutureMetric"));
    // The metric of unknown type has no source this version knows.
    assert_eq!(metrics[5], MetricSpec { type_: future.clone(), ..MetricSpec::default() });

    let target = &metrics[0].resource.as_ref().unwrap().target.type_;
    assert_eq!(target, &MetricTargetType::Other("Percentile".into()));
    assert!(!target.is_known());

    let behavior = hpa.spec.behavior.as_ref().unwrap();
    let select = behavior.scale_up.as_ref().unwrap().select_policy.as_ref().unwrap();
    assert_eq!(select, &HPAScalingRulesSelectPolicy::Other("Median".into()));
    assert!(!select.is_known());
    let policy = &behavior.scale_down.as_ref().unwrap().policies.as_ref().unwrap()[0].type_;
    assert_eq!(policy, &HPAScalingPolicyType::Other("Replicas".into()));
    assert!(!policy.is_known());

    let status = hpa.status.as_ref().unwrap();
    let current = &status.current_metrics.as_ref().unwrap()[5].type_;
    assert_eq!(current, &MetricStatusType::Other("FutureMetric".into()));
    assert!(!current.is_known());
    let condition = &status.conditions.as_ref().unwrap()[0];
    assert_eq!(condition.type_, HorizontalPodAutoscalerConditionType::Other("ScalingThrottled".into()));
    assert!(!condition.type_.is_known());
    assert_eq!(condition.status, HorizontalPodAutoscalerConditionStatus::Other("Maybe".into()));
    assert!(!condition.status.is_known());
}

#[test]
fn enum_values_match_exactly() {
    // Matching is case-sensitive and exact, as in Go: "resource" is not "Resource".
    for (text, known) in [("Resource", true), ("resource", false), (" Resource", false), ("", false)] {
        let decoded: MetricSpecType = decode_value(text, &json!(text));
        assert_eq!(decoded.is_known(), known, "{text:?}");
        assert_eq!(decoded.as_str(), text);
        assert_eq!(common::encode(text, &decoded), json!(text));
    }
    assert_eq!(MetricSpecType::VALUES, ["ContainerResource", "External", "Object", "Pods", "Resource"]);
    assert_eq!(HPAScalingRulesSelectPolicy::VALUES, ["Max", "Min", "Disabled"]);
}

#[test]
fn unknown_csr_enum_values_survive_a_round_trip() {
    let mut input = fixture("csr.json");
    input["spec"]["usages"].as_array_mut().unwrap().push(json!("quantum signing"));
    input["status"]["conditions"].as_array_mut().unwrap().push(json!({
        "type": "Revoked",
        "status": "True",
        "reason": "KeyCompromise",
        "lastUpdateTime": "2026-11-29T20:00:00Z",
        "lastTransitionTime": "2026-11-29T20:00:00Z"
    }));

    let (csr, output) = round_trip::<CertificateSigningRequest>("unknown CSR enums", &input);
    assert_json_eq("unknown CSR enums re-encoded", &input, &output);

    let usages = csr.spec.usages.as_ref().unwrap();
    assert_eq!(usages, &[Usage::DigitalSignature, Usage::ClientAuth, Usage::Other("quantum signing".into())]);
    assert!(!usages[2].is_known());
    assert_eq!(usages[2].as_str(), "quantum signing");
    let revoked = &csr.status.as_ref().unwrap().conditions.as_ref().unwrap()[1];
    assert_eq!(revoked.type_, CertificateSigningRequestConditionType::Other("Revoked".into()));
    assert!(!revoked.type_.is_known());
}

#[test]
fn unknown_fields_beside_an_unknown_enum_value_are_dropped() {
    // A typed model keeps only the fields it has, as Go's typed clients and k8s-openapi do:
    // the new `type` value survives, the new source field it names does not.
    let input = json!({"type": "FutureMetric", "futureMetric": {"name": "x"}});
    let (metric, output) = round_trip::<MetricSpec>("future metric", &input);
    assert_eq!(metric.type_, MetricSpecType::Other("FutureMetric".into()));
    assert_json_eq("future metric re-encoded", &json!({"type": "FutureMetric"}), &output);
}

// ---------------------------------------------------------------------------------------
// `null` where Kubernetes sends it
// ---------------------------------------------------------------------------------------

#[test]
fn null_creation_timestamp_decodes_as_unset() {
    // Go writes a zero metav1.Time as `null` (it cannot be omitted: it is a struct), so
    // objects that were never stored, and embedded templates, carry
    // `"creationTimestamp": null`. It decodes as unset and is left out on output, which
    // Kubernetes reads back identically.
    let mut input = fixture("hpa.json");
    replace(&mut input, "/metadata/creationTimestamp", Value::Null);
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("creationTimestamp null", &input);
    assert_eq!(hpa.metadata.as_ref().unwrap().creation_timestamp, None);

    let mut expected = input.clone();
    remove(&mut expected, "/metadata/creationTimestamp");
    assert_json_eq("creationTimestamp null re-encoded", &expected, &output);
}

#[test]
fn null_required_list_decodes_as_empty() {
    // `items` is required; Go writes a nil slice as `null`.
    let input = json!({
        "kind": "HorizontalPodAutoscalerList",
        "apiVersion": "autoscaling/v2",
        "metadata": {"resourceVersion": "48224310"},
        "items": null
    });
    let (list, output) = round_trip::<HorizontalPodAutoscalerList>("items null", &input);
    assert!(list.items.is_empty());
    let mut expected = input.clone();
    expected["items"] = json!([]);
    assert_json_eq("items null re-encoded", &expected, &output);
}

#[test]
fn null_optional_fields_decode_as_none_and_are_omitted() {
    let input = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": "web",
            "labels": null,
            "annotations": null,
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "97c3c95e-70cd-4279-9665-10e2c6d8168f",
                "controller": null, "blockOwnerDeletion": null
            }],
            "managedFields": null
        },
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": null},
            "minReplicas": null,
            "maxReplicas": 10,
            "metrics": [{
                "type": "Pods",
                "pods": {
                    "metric": {"name": "rps", "selector": null},
                    "target": {"type": "AverageValue", "averageValue": "1k", "value": null, "averageUtilization": null}
                },
                "resource": null
            }],
            "behavior": {"scaleUp": null, "scaleDown": {"policies": null, "selectPolicy": null, "stabilizationWindowSeconds": 60}}
        },
        "status": {
            "desiredReplicas": 3,
            "currentMetrics": null,
            "conditions": null,
            "lastScaleTime": null,
            "observedGeneration": null
        }
    });
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("optional nulls", &input);

    let meta = hpa.metadata.as_ref().unwrap();
    assert_eq!((&meta.labels, &meta.annotations, &meta.managed_fields), (&None, &None, &None));
    let owner = &meta.owner_references.as_ref().unwrap()[0];
    assert_eq!((owner.controller, owner.block_owner_deletion), (None, None));
    assert_eq!(hpa.spec.scale_target_ref.api_version, None);
    assert_eq!(hpa.spec.min_replicas, None);
    let metric = &hpa.spec.metrics.as_ref().unwrap()[0];
    assert_eq!(metric.resource, None);
    let pods = metric.pods.as_ref().unwrap();
    assert_eq!(pods.metric.selector, None);
    assert_eq!((&pods.target.value, pods.target.average_utilization), (&None, None));
    let behavior = hpa.spec.behavior.as_ref().unwrap();
    assert_eq!(behavior.scale_up, None);
    let down = behavior.scale_down.as_ref().unwrap();
    assert_eq!((&down.policies, &down.select_policy, down.stabilization_window_seconds), (&None, &None, Some(60)));
    let status = hpa.status.as_ref().unwrap();
    assert_eq!((&status.current_metrics, &status.conditions), (&None, &None));
    assert_eq!((status.last_scale_time, status.observed_generation), (None, None));

    // On output every `null` member is left out; everything else is unchanged.
    let expected = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": "web",
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "97c3c95e-70cd-4279-9665-10e2c6d8168f"
            }]
        },
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "maxReplicas": 10,
            "metrics": [{
                "type": "Pods",
                "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "1k"}}
            }],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}
        },
        "status": {"desiredReplicas": 3}
    });
    assert_json_eq("optional nulls re-encoded", &expected, &output);
}

#[test]
fn null_optional_top_level_members_decode_as_none() {
    let input = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": null,
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3},
        "status": null
    });
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("top-level nulls", &input);
    assert_eq!((&hpa.metadata, &hpa.status), (&None, &None));
    assert_json_eq(
        "top-level nulls re-encoded",
        &json!({
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3}
        }),
        &output,
    );
}

#[test]
fn null_required_fields_decode_as_go_zero_values() {
    // Go decodes `null` into a non-pointer field as its zero value and writes the zero value
    // back: `0`, `""`, `{}` with its own required members. The generated types do the same.
    let input = json!({
        "spec": null,
        "status": {"desiredReplicas": null}
    });
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("required nulls", &input);
    assert_eq!(hpa.spec.max_replicas, 0);
    assert_eq!(hpa.spec.scale_target_ref.kind, "");
    assert_eq!(hpa.spec.scale_target_ref.name, "");
    assert_eq!(hpa.status.as_ref().unwrap().desired_replicas, 0);
    assert_json_eq(
        "required nulls re-encoded",
        &json!({
            "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
            "status": {"desiredReplicas": 0}
        }),
        &output,
    );

    // A required object and a required enum sent as `null` inside a metric.
    let input = json!({
        "type": "Resource",
        "resource": {"name": null, "target": {"type": null, "averageUtilization": 50}}
    });
    let (metric, output) = round_trip::<MetricSpec>("metric nulls", &input);
    let target = &metric.resource.as_ref().unwrap().target;
    assert_eq!(target.type_, MetricTargetType::Other(String::new()));
    assert!(!target.type_.is_known(), "the empty string is not a known target type");
    assert_json_eq(
        "metric nulls re-encoded",
        &json!({"type": "Resource", "resource": {"name": "", "target": {"type": "", "averageUtilization": 50}}}),
        &output,
    );

    let input = json!({"type": "Object", "object": {"describedObject": null, "metric": null, "target": null}});
    let (_, output) = round_trip::<MetricSpec>("object nulls", &input);
    assert_json_eq(
        "object nulls re-encoded",
        &json!({"type": "Object", "object": {
            "describedObject": {"kind": "", "name": ""},
            "metric": {"name": ""},
            "target": {"type": ""}
        }}),
        &output,
    );
}

#[test]
fn null_csr_fields_decode_as_go_zero_values() {
    let input = json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr-null", "creationTimestamp": null},
        "spec": {
            "request": null,
            "signerName": null,
            "usages": null,
            "groups": null,
            "extra": null,
            "expirationSeconds": null
        },
        "status": {"certificate": null, "conditions": null}
    });
    let (csr, output) = round_trip::<CertificateSigningRequest>("CSR nulls", &input);
    // `request` is a required []byte: Go decodes null as a nil slice, which is empty data.
    assert_eq!(csr.spec.request, Bytes::default());
    assert!(csr.spec.request.as_slice().is_empty());
    assert_eq!(csr.spec.signer_name, "");
    assert_eq!((&csr.spec.usages, &csr.spec.groups, &csr.spec.extra), (&None, &None, &None));
    assert_eq!(csr.spec.expiration_seconds, None);
    let status = csr.status.as_ref().unwrap();
    assert_eq!((&status.certificate, &status.conditions), (&None, &None));
    assert_eq!(csr.metadata.as_ref().unwrap().creation_timestamp, None);

    // Empty data is written as `""` (Go writes a nil slice as `null` and an empty one as
    // `""`; both decode to empty data on either side).
    assert_json_eq(
        "CSR nulls re-encoded",
        &json!({
            "apiVersion": "certificates.k8s.io/v1",
            "kind": "CertificateSigningRequest",
            "metadata": {"name": "csr-null"},
            "spec": {"request": "", "signerName": ""},
            "status": {}
        }),
        &output,
    );
}

#[test]
fn null_extra_value_in_csr_is_accepted() {
    // `spec.extra` is `map[string]ExtraValue` with `ExtraValue []string` in Go: a key whose
    // value is a nil slice is written as `"key": null` and read back as nil. An authenticator
    // (e.g. a webhook token authenticator answering `"extra": {"scopes": null}`) can produce
    // it, and the API server copies user extra into the CSR verbatim.
    let input = json!({
        "spec": {
            "request": "",
            "signerName": "kubernetes.io/kube-apiserver-client",
            "extra": {"scopes": null, "team": ["payments"]}
        }
    });
    let (csr, output) = round_trip::<CertificateSigningRequest>("extra null value", &input);
    let extra = csr.spec.extra.as_ref().expect("extra");
    assert_eq!(extra.get("scopes").map(Vec::len), Some(0), "null value decodes as an empty list");
    assert_eq!(extra["team"], ["payments"]);
    // Go writes a nil ExtraValue back as `null`; an empty list is equivalent on decoding.
    let scopes = &output["spec"]["extra"]["scopes"];
    assert!(scopes.is_null() || scopes == &json!([]), "scopes re-encoded as {scopes}");
}

// ---------------------------------------------------------------------------------------
// Quantity
// ---------------------------------------------------------------------------------------

#[test]
fn quantity_accepts_json_numbers() {
    // `kubectl apply` of YAML such as `averageValue: 500` sends a JSON number.
    let input = json!({"type": "AverageValue", "averageValue": 500, "value": 0.25});
    let (target, output) = round_trip::<generated::api::autoscaling::v2::MetricTarget>("numbers", &input);
    assert_eq!(target.average_value.as_ref().map(Quantity::as_str), Some("500"));
    assert_eq!(target.value.as_ref().map(Quantity::as_str), Some("250m"));
    // Output is always a string, in the API server's canonical form.
    assert_json_eq(
        "numbers re-encoded",
        &json!({"type": "AverageValue", "averageValue": "500", "value": "250m"}),
        &output,
    );

    for (number, text) in [
        (json!(0), "0"),
        (json!(-3), "-3"),
        (json!(1e3), "1k"),
        (json!(2.5e-3), "2500u"),
        (json!(12_345_678_901_234_567_890_u64), "12345678901234567890"),
    ] {
        let decoded: Quantity = decode_value(&number.to_string(), &number);
        assert_eq!(decoded.as_str(), text, "from {number}");
        assert!(decoded.is_valid(), "{text} is a valid quantity");
    }

    // In a fixture: the tolerance of the HPA as a number.
    let mut input = fixture("hpa.json");
    replace(&mut input, "/spec/behavior/scaleUp/tolerance", json!(0.05));
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("tolerance number", &input);
    let up = hpa.spec.behavior.as_ref().unwrap().scale_up.as_ref().unwrap();
    assert_eq!(up.tolerance.as_ref().map(Quantity::as_str), Some("50m"));
    assert_eq!(output.pointer("/spec/behavior/scaleUp/tolerance"), Some(&json!("50m")));
}

#[test]
fn quantity_strings_are_read_as_the_api_server_reads_them() {
    // Kept as sent where the API server keeps the text, in its canonical form otherwise.
    for (input, kept) in [("500m", "500m"), ("1.5Gi", "1536Mi"), ("2e3", "2e3"), (" 250 ", "250"), ("1000m", "1")] {
        let decoded: Quantity = decode_value(input, &json!(input));
        assert_eq!(decoded.as_str(), kept);
        assert_eq!(common::encode(input, &decoded), json!(kept));
    }
    // `null` for an optional quantity is unset; for a bare Quantity it is Go's zero, "0".
    let target: generated::api::autoscaling::v2::MetricTarget =
        decode_value("null value", &json!({"type": "Value", "value": null}));
    assert_eq!(target.value, None);
    let zero: Quantity = decode_value("null", &Value::Null);
    assert_eq!(zero.as_str(), "0");
}

// ---------------------------------------------------------------------------------------
// Time and MicroTime
// ---------------------------------------------------------------------------------------

#[test]
fn time_is_written_with_second_precision_in_utc() {
    let mut input = fixture("hpa.json");
    replace(&mut input, "/status/lastScaleTime", json!("2026-11-29T18:41:07.987654321Z"));
    replace(&mut input, "/metadata/creationTimestamp", json!("2026-11-02T10:14:31+02:00"));
    // managedFields[].time is a metav1.Time (not a MicroTime): also whole seconds.
    replace(&mut input, "/metadata/managedFields/0/time", json!("2026-11-20T16:40:02.123456Z"));

    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("time precision", &input);
    let last = hpa.status.as_ref().unwrap().last_scale_time.unwrap();
    // The fraction is read (nanoseconds kept in memory) and dropped on output, as Go does.
    assert_eq!(last.0.as_second(), 1_795_977_667);
    assert_eq!(last.0.subsec_nanosecond(), 987_654_321);
    assert_eq!(output.pointer("/status/lastScaleTime"), Some(&json!("2026-11-29T18:41:07Z")));
    // An offset is converted to UTC.
    assert_eq!(hpa.metadata.as_ref().unwrap().creation_timestamp, Some(time("2026-11-02T08:14:31Z")));
    assert_eq!(output.pointer("/metadata/creationTimestamp"), Some(&json!("2026-11-02T08:14:31Z")));
    assert_eq!(output.pointer("/metadata/managedFields/0/time"), Some(&json!("2026-11-20T16:40:02Z")));

    // Everything else is unchanged: with those three restored, output equals the fixture.
    let mut restored = output.clone();
    replace(&mut restored, "/status/lastScaleTime", json!("2026-11-29T18:41:07.987654321Z"));
    replace(&mut restored, "/metadata/creationTimestamp", json!("2026-11-02T10:14:31+02:00"));
    replace(&mut restored, "/metadata/managedFields/0/time", json!("2026-11-20T16:40:02.123456Z"));
    assert_json_eq("time precision, other fields", &input, &restored);
}

#[test]
fn go_zero_time_is_written_as_null() {
    // Go writes the zero metav1.Time (0001-01-01T00:00:00Z) as `null`, even where the field
    // is set, and so does kube_apigen::Time. A controller that never set lastTransitionTime
    // produces exactly this.
    let input = json!({"type": "AbleToScale", "status": "True", "lastTransitionTime": "0001-01-01T00:00:00Z"});
    let (condition, output) =
        round_trip::<generated::api::autoscaling::v2::HorizontalPodAutoscalerCondition>("zero time", &input);
    let zero = condition.last_transition_time.expect("a zero time is a value when decoded");
    assert!(zero.is_zero());
    assert_eq!(zero, Time::default());
    assert_json_eq(
        "zero time re-encoded",
        &json!({"type": "AbleToScale", "status": "True", "lastTransitionTime": null}),
        &output,
    );
    // Read back, that `null` is unset: the same on the wire as the zero time.
    let again: generated::api::autoscaling::v2::HorizontalPodAutoscalerCondition =
        decode_value("zero time, again", &output);
    assert_eq!(again.last_transition_time, None);
}

#[test]
fn invalid_time_is_rejected() {
    // Go's time.Parse error, as the API server reports it.
    let message = decode_err::<Time>("not a time", &json!("yesterday"));
    assert!(
        message
            .contains(r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#),
        "{message}"
    );
    let message = decode_err::<Time>("no zone", &json!("2026-11-29T18:41:07"));
    assert!(message.contains(r#"cannot parse "" as "Z07:00""#), "{message}");
}

#[test]
fn micro_time_is_written_with_six_fractional_digits() {
    // Neither autoscaling/v2 nor certificates/v1 has a MicroTime field (it appears in
    // events and leases); the runtime type is checked on its own.
    for (input, written) in [
        ("2026-11-29T19:05:49.123456Z", "2026-11-29T19:05:49.123456Z"),
        ("2026-11-29T19:05:49,000000Z", "2026-11-29T19:05:49.000000Z"),
        ("2026-11-29T21:05:49.500000+02:00", "2026-11-29T19:05:49.500000Z"),
    ] {
        let decoded: MicroTime = decode_value(input, &json!(input));
        assert_eq!(common::encode(input, &decoded), json!(written), "{input}");
    }
    // Go's layout has exactly six digits, so the API server refuses any other number.
    for input in ["2026-11-29T19:05:49.1234567Z", "2026-11-29T19:05:49Z", "2026-11-29T21:05:49.5+02:00"] {
        let message = decode_err::<MicroTime>(input, &json!(input));
        assert!(message.contains(r#"as "2006-01-02T15:04:05.000000Z07:00""#), "{message}");
    }
}

// ---------------------------------------------------------------------------------------
// IntOrString
// ---------------------------------------------------------------------------------------

#[test]
fn int_or_string_keeps_both_forms() {
    // Neither autoscaling/v2 nor certificates/v1 has an int-or-string field; the support
    // type the generator maps them to is checked on its own.
    let input = json!([8080, "http", "25%", "80", 0, -1]);
    let (values, output) = round_trip::<Vec<IntOrString>>("int-or-string", &input);
    assert_eq!(
        values,
        [
            IntOrString::Int(8080),
            IntOrString::String("http".into()),
            IntOrString::String("25%".into()),
            IntOrString::String("80".into()),
            IntOrString::Int(0),
            IntOrString::Int(-1),
        ]
    );
    assert_json_eq("int-or-string re-encoded", &input, &output);
    // Kubernetes reads the number into an int32: no fraction, nothing out of range.
    decode_err::<IntOrString>("fraction", &json!(1.5));
    decode_err::<IntOrString>("too large", &json!(2_147_483_648_i64));
}

// ---------------------------------------------------------------------------------------
// Bytes (format: byte)
// ---------------------------------------------------------------------------------------

#[test]
fn base64_with_line_breaks_is_accepted_and_written_without() {
    // Go's base64 decoder skips \r and \n, so a request wrapped at 76 columns is accepted.
    let input = fixture("csr.json");
    let plain = input["spec"]["request"].as_str().unwrap().to_owned();
    let wrapped: String =
        plain.as_bytes().chunks(76).map(|chunk| std::str::from_utf8(chunk).unwrap()).collect::<Vec<_>>().join("\r\n");
    let mut wrapped_input = input.clone();
    replace(&mut wrapped_input, "/spec/request", json!(wrapped));

    let (csr, output) = round_trip::<CertificateSigningRequest>("wrapped base64", &wrapped_input);
    assert_eq!(csr.spec.request.as_slice(), common::fixture_bytes("node-csr.pem").as_slice());
    assert_json_eq("wrapped base64 re-encoded", &input, &output);
}

#[test]
fn malformed_base64_is_rejected() {
    let mut input = fixture("csr.json");
    let plain = input["spec"]["request"].as_str().unwrap().to_owned();
    // Missing padding: Go's StdEncoding rejects it as well.
    replace(&mut input, "/spec/request", json!(plain.trim_end_matches('=')));
    let message = decode_err::<CertificateSigningRequest>("unpadded", &input);
    assert!(message.contains("base64"), "{message}");

    replace(&mut input, "/spec/request", json!("not base64!"));
    let message = decode_err::<CertificateSigningRequest>("not base64", &input);
    assert!(message.contains("base64"), "{message}");
}
