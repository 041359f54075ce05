//! Cross-check against the `k8s-openapi` crate (0.29, feature `latest` = Kubernetes 1.37):
//! the same JSON decodes into both, each side reads what the other writes, and the JSON
//! after a trip through both is equal to the input.
//!
//! Where the two legitimately differ the difference is asserted exactly:
//!
//! - k8s-openapi always writes `apiVersion`, `kind` and `metadata` of a resource (they are
//!   constants or non-optional there); the generated types write them only when set.
//!   Visible for list items, which the API server sends without `apiVersion`/`kind`.
//! - k8s-openapi keeps `ListMeta.shardInfo` (alpha in 1.37); `kube_apigen::ListMeta` has no such
//!   field and drops it.
//! - `kube_apigen::Quantity` trims surrounding whitespace as the API server does; k8s-openapi
//!   keeps the text as sent.
//! - `kube_apigen::Bytes` skips line breaks in base64 as Go does; k8s-openapi rejects them.
//! - `kube_apigen::Time` writes Go's zero time as `null`, as Go does; k8s-openapi writes
//!   `0001-01-01T00:00:00Z`.
//! - k8s-openapi keeps enums as plain strings; the generated enums keep unknown values in
//!   `Other`, so both carry every value through.

mod common;

use common::{assert_json_eq, decode_value, encode, fixture, replace, round_trip};
use generated::api::autoscaling::v2 as ours_hpa;
use generated::api::certificates::v1 as ours_csr;
use k8s_openapi::api::autoscaling::v2 as theirs_hpa;
use k8s_openapi::api::certificates::v1 as theirs_csr;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as theirs_meta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Decodes `input` into `Ours` and `Theirs` and checks every path through the two:
///
/// - input → ours → JSON equals `ours_expected`;
/// - input → theirs → JSON equals `theirs_expected`;
/// - theirs' JSON → ours → JSON and ours' JSON → theirs → JSON both equal `theirs_expected`
///   (ours writes back what it reads, so what k8s-openapi adds stays).
///
/// Outside documented differences both expectations are the input itself. Returns both
/// decoded values.
fn cross_check<Ours, Theirs>(
    context: &str,
    input: &Value,
    ours_expected: &Value,
    theirs_expected: &Value,
) -> (Ours, Theirs)
where
    Ours: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
    Theirs: DeserializeOwned + Serialize,
{
    let (ours, ours_out) = round_trip::<Ours>(&format!("{context} via generated"), input);
    assert_json_eq(&format!("{context}: generated re-encoded"), ours_expected, &ours_out);

    let (theirs, theirs_out) = round_trip::<Theirs>(&format!("{context} via k8s-openapi"), input);
    assert_json_eq(&format!("{context}: k8s-openapi re-encoded"), theirs_expected, &theirs_out);

    let (ours_from_theirs, out) =
        round_trip::<Ours>(&format!("{context}: k8s-openapi output via generated"), &theirs_out);
    assert_json_eq(&format!("{context}: k8s-openapi → generated"), theirs_expected, &out);

    let (_, out) = round_trip::<Theirs>(&format!("{context}: generated output via k8s-openapi"), &ours_out);
    assert_json_eq(&format!("{context}: generated → k8s-openapi"), theirs_expected, &out);

    // Where neither side normalizes anything, ours decodes the same value from the input
    // and from k8s-openapi's output. (Normalizing inputs, such as a time with a fraction,
    // legitimately decode to values that differ in memory.)
    if input == ours_expected && input == theirs_expected {
        assert_eq!(ours_from_theirs, ours, "{context}: decoded from k8s-openapi output");
    }
    (ours, theirs)
}

/// [`cross_check`] where both sides must give back the input unchanged.
fn cross_check_same<Ours, Theirs>(context: &str, input: &Value) -> (Ours, Theirs)
where
    Ours: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
    Theirs: DeserializeOwned + Serialize,
{
    cross_check(context, input, input, input)
}

#[test]
fn hpa_fixture_agrees_with_k8s_openapi() {
    let input = fixture("hpa.json");
    let (ours, theirs) =
        cross_check_same::<ours_hpa::HorizontalPodAutoscaler, theirs_hpa::HorizontalPodAutoscaler>("hpa.json", &input);

    // Spot checks on both decoded values: the same content, field by field.
    assert_eq!(theirs.metadata.uid.as_deref(), ours.metadata.as_ref().and_then(|m| m.uid.as_deref()));
    assert_eq!(
        theirs.metadata.creation_timestamp.as_ref().map(|t| t.0.as_second()),
        ours.metadata.as_ref().and_then(|m| m.creation_timestamp).map(|t| t.0.as_second())
    );
    let their_metrics = theirs.spec.metrics.as_ref().unwrap();
    let our_metrics = ours.spec.metrics.as_ref().unwrap();
    assert_eq!(their_metrics.len(), our_metrics.len());
    for (t, o) in their_metrics.iter().zip(our_metrics) {
        assert_eq!(t.type_, o.type_.as_str());
    }
    let their_up = theirs.spec.behavior.as_ref().unwrap().scale_up.as_ref().unwrap();
    assert_eq!(their_up.tolerance.as_ref().map(|q| q.0.as_str()), Some("50m"));
    assert_eq!(their_up.select_policy.as_deref(), Some("Max"));
    let their_conditions = theirs.status.as_ref().unwrap().conditions.as_ref().unwrap();
    assert_eq!(their_conditions[0].observed_generation, Some(3));

    // Identity constants agree.
    type Ours = ours_hpa::HorizontalPodAutoscaler;
    type Theirs = theirs_hpa::HorizontalPodAutoscaler;
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.api_version(), <Theirs as k8s_openapi::Resource>::API_VERSION);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.group, <Theirs as k8s_openapi::Resource>::GROUP);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.version, <Theirs as k8s_openapi::Resource>::VERSION);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.kind, <Theirs as k8s_openapi::Resource>::KIND);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.plural, <Theirs as k8s_openapi::Resource>::URL_PATH_SEGMENT);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.list_kind, <Theirs as k8s_openapi::ListableResource>::LIST_KIND);
}

#[test]
fn csr_fixture_agrees_with_k8s_openapi() {
    let input = fixture("csr.json");
    let (ours, theirs) = cross_check_same::<ours_csr::CertificateSigningRequest, theirs_csr::CertificateSigningRequest>(
        "csr.json", &input,
    );
    assert_eq!(theirs.spec.request.0, ours.spec.request.0);
    assert_eq!(
        theirs.status.as_ref().and_then(|s| s.certificate.as_ref()).map(|c| &c.0),
        ours.status.as_ref().and_then(|s| s.certificate.as_ref()).map(|c| &c.0)
    );
    let their_usages = theirs.spec.usages.as_ref().unwrap();
    let our_usages: Vec<&str> = ours.spec.usages.as_ref().unwrap().iter().map(|u| u.as_str()).collect();
    assert_eq!(their_usages, &our_usages);

    type Ours = ours_csr::CertificateSigningRequest;
    type Theirs = theirs_csr::CertificateSigningRequest;
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.api_version(), <Theirs as k8s_openapi::Resource>::API_VERSION);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.plural, <Theirs as k8s_openapi::Resource>::URL_PATH_SEGMENT);
    assert_eq!(<Ours as kube_apigen::Resource>::INFO.list_kind, <Theirs as k8s_openapi::ListableResource>::LIST_KIND);
}

#[test]
fn list_items_gain_api_version_and_kind_through_k8s_openapi() {
    // Difference: the API server sends list items without apiVersion/kind. k8s-openapi's
    // resource types always write them; the generated types write what they read.
    let input = fixture("hpa-list.json");
    let mut with_type_meta = input.clone();
    for item in with_type_meta["items"].as_array_mut().unwrap() {
        item["apiVersion"] = json!("autoscaling/v2");
        item["kind"] = json!("HorizontalPodAutoscaler");
    }
    cross_check::<ours_hpa::HorizontalPodAutoscalerList, k8s_openapi::List<theirs_hpa::HorizontalPodAutoscaler>>(
        "hpa-list.json",
        &input,
        &input,
        &with_type_meta,
    );

    let input = fixture("csr-list.json");
    let mut with_type_meta = input.clone();
    for item in with_type_meta["items"].as_array_mut().unwrap() {
        item["apiVersion"] = json!("certificates.k8s.io/v1");
        item["kind"] = json!("CertificateSigningRequest");
    }
    cross_check::<ours_csr::CertificateSigningRequestList, k8s_openapi::List<theirs_csr::CertificateSigningRequest>>(
        "csr-list.json",
        &input,
        &input,
        &with_type_meta,
    );
}

#[test]
fn status_fixtures_agree_with_k8s_openapi() {
    for name in ["status-invalid.json", "status-gone.json"] {
        let input = fixture(name);
        let (ours, theirs) = cross_check_same::<kube_apigen::Status, theirs_meta::Status>(name, &input);
        assert_eq!(theirs.code, ours.code);
        assert_eq!(theirs.reason, ours.reason);
        assert_eq!(theirs.metadata.continue_, ours.metadata.continue_);
    }
}

#[test]
fn list_meta_shard_info_is_dropped_by_support_list_meta() {
    // Difference: Kubernetes 1.37 adds `metadata.shardInfo` to lists (alpha, feature gate
    // ShardedListAndWatch). k8s-openapi `latest` has it; `kube_apigen::ListMeta` does not and
    // drops it, so a sharded list response loses its shard selector through our types.
    let mut input = fixture("hpa-list.json");
    input["metadata"]["shardInfo"] = json!({"selector": "shard-range(object.metadata.uid, 0, 8000)"});

    let theirs: k8s_openapi::List<theirs_hpa::HorizontalPodAutoscaler> = decode_value("shardInfo", &input);
    assert_eq!(
        theirs.metadata.shard_info.as_ref().map(|s| s.selector.as_str()),
        Some("shard-range(object.metadata.uid, 0, 8000)")
    );
    let (_, ours_out) = round_trip::<ours_hpa::HorizontalPodAutoscalerList>("shardInfo", &input);
    let mut expected = input.clone();
    expected["metadata"].as_object_mut().unwrap().remove("shardInfo");
    assert_json_eq("shardInfo via generated", &expected, &ours_out);
}

#[test]
fn unknown_enum_values_pass_through_both() {
    let mut input = fixture("hpa.json");
    input["spec"]["metrics"].as_array_mut().unwrap().push(json!({"type": "FutureMetric"}));
    replace(&mut input, "/spec/behavior/scaleUp/selectPolicy", json!("Median"));
    replace(&mut input, "/status/conditions/0/type", json!("ScalingThrottled"));
    let (ours, theirs) = cross_check_same::<ours_hpa::HorizontalPodAutoscaler, theirs_hpa::HorizontalPodAutoscaler>(
        "unknown HPA enums",
        &input,
    );
    assert_eq!(theirs.spec.metrics.as_ref().unwrap()[5].type_, "FutureMetric");
    assert!(!ours.spec.metrics.as_ref().unwrap()[5].type_.is_known());

    let mut input = fixture("csr.json");
    input["spec"]["usages"].as_array_mut().unwrap().push(json!("quantum signing"));
    cross_check_same::<ours_csr::CertificateSigningRequest, theirs_csr::CertificateSigningRequest>(
        "unknown CSR usage",
        &input,
    );
}

#[test]
fn nulls_decode_alike() {
    // creationTimestamp null: unset on both sides, left out on output by both.
    let mut input = fixture("hpa.json");
    replace(&mut input, "/metadata/creationTimestamp", Value::Null);
    let mut expected = input.clone();
    expected["metadata"].as_object_mut().unwrap().remove("creationTimestamp");
    let (ours, theirs) = cross_check::<ours_hpa::HorizontalPodAutoscaler, theirs_hpa::HorizontalPodAutoscaler>(
        "creationTimestamp null",
        &input,
        &expected,
        &expected,
    );
    assert_eq!(theirs.metadata.creation_timestamp, None);
    assert_eq!(ours.metadata.unwrap().creation_timestamp, None);

    // A required list sent as null: empty on both sides, written as [].
    let input = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscalerList",
                       "metadata": {"resourceVersion": "1"}, "items": null});
    let mut expected = input.clone();
    expected["items"] = json!([]);
    cross_check::<ours_hpa::HorizontalPodAutoscalerList, k8s_openapi::List<theirs_hpa::HorizontalPodAutoscaler>>(
        "items null",
        &input,
        &expected,
        &expected,
    );

    // Optional objects and required scalars sent as null.
    let input = json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr-null"},
        "spec": {"request": null, "signerName": "example.com/signer", "usages": null, "extra": null},
        "status": {"certificate": null, "conditions": null}
    });
    let expected = json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr-null"},
        "spec": {"request": "", "signerName": "example.com/signer"},
        "status": {}
    });
    let (ours, theirs) = cross_check::<ours_csr::CertificateSigningRequest, theirs_csr::CertificateSigningRequest>(
        "CSR nulls",
        &input,
        &expected,
        &expected,
    );
    assert!(theirs.spec.request.0.is_empty() && ours.spec.request.0.is_empty());
}

#[test]
fn missing_metadata_is_written_only_by_k8s_openapi() {
    // Difference: `metadata` (and `apiVersion`/`kind`) are always written by k8s-openapi,
    // as `{}` when empty; the generated types leave out what was not sent. A `spec: null`
    // becomes the zero spec on both sides, as in Go.
    let input = json!({"spec": null});
    let zero_spec = json!({"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0});
    let ours_expected = json!({"spec": zero_spec});
    let theirs_expected = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {},
        "spec": zero_spec
    });
    let (ours, theirs) = cross_check::<ours_hpa::HorizontalPodAutoscaler, theirs_hpa::HorizontalPodAutoscaler>(
        "spec null",
        &input,
        &ours_expected,
        &theirs_expected,
    );
    assert_eq!((&ours.api_version, &ours.kind, &ours.metadata), (&None, &None, &None));
    assert_eq!(theirs.metadata, theirs_meta::ObjectMeta::default());
    assert_eq!(ours.spec, ours_hpa::HorizontalPodAutoscalerSpec::default());
}

#[test]
fn quantity_numbers_decode_alike() {
    for (number, text) in [(json!(500), "500"), (json!(-3), "-3"), (json!(1536), "1536")] {
        let input = json!({"type": "AverageValue", "averageValue": number});
        let expected = json!({"type": "AverageValue", "averageValue": text});
        let (ours, theirs) = cross_check::<ours_hpa::MetricTarget, theirs_hpa::MetricTarget>(
            &format!("averageValue {number}"),
            &input,
            &expected,
            &expected,
        );
        assert_eq!(ours.average_value.as_ref().map(|q| q.as_str()), Some(text));
        assert_eq!(theirs.average_value.as_ref().map(|q| q.0.as_str()), Some(text));
    }
}

#[test]
fn quantity_is_canonicalized_only_by_support() {
    // Difference: the API server writes a quantity it has read in its canonical form
    // (`0.25` as `250m`, `1000` as `1k`, `1.5Gi` as `1536Mi`); so does kube_apigen::Quantity.
    // k8s-openapi keeps the text as sent.
    for (sent, canonical) in
        [(json!(0.25), "250m"), (json!(1000), "1k"), (json!(1.5), "1500m"), (json!("1.5Gi"), "1536Mi")]
    {
        let input = json!({"type": "AverageValue", "averageValue": sent});
        let ours: ours_hpa::MetricTarget = decode_value("ours", &input);
        let theirs: theirs_hpa::MetricTarget = decode_value("theirs", &input);
        assert_eq!(ours.average_value.as_ref().map(|q| q.as_str()), Some(canonical));
        let sent_text = sent.as_str().map_or_else(|| sent.to_string(), str::to_owned);
        assert_eq!(theirs.average_value.as_ref().map(|q| q.0.as_str()), Some(sent_text.as_str()));
    }
}

#[test]
fn quantity_whitespace_is_trimmed_only_by_support() {
    // Difference: the API server trims a quantity (`" 250 "` is 250); so does
    // kube_apigen::Quantity. k8s-openapi keeps the text untouched.
    let input = json!({"type": "AverageValue", "averageValue": " 250 "});
    let ours: ours_hpa::MetricTarget = decode_value("ours", &input);
    let theirs: theirs_hpa::MetricTarget = decode_value("theirs", &input);
    assert_eq!(ours.average_value.as_ref().map(|q| q.as_str()), Some("250"));
    assert_eq!(theirs.average_value.as_ref().map(|q| q.0.as_str()), Some(" 250 "));
}

#[test]
fn time_precision_agrees() {
    let mut input = fixture("hpa.json");
    replace(&mut input, "/status/lastScaleTime", json!("2026-11-29T18:41:07.987654321Z"));
    replace(&mut input, "/metadata/creationTimestamp", json!("2026-11-02T10:14:31+02:00"));
    let mut expected = input.clone();
    replace(&mut expected, "/status/lastScaleTime", json!("2026-11-29T18:41:07Z"));
    replace(&mut expected, "/metadata/creationTimestamp", json!("2026-11-02T08:14:31Z"));
    let (ours, theirs) = cross_check::<ours_hpa::HorizontalPodAutoscaler, theirs_hpa::HorizontalPodAutoscaler>(
        "time precision",
        &input,
        &expected,
        &expected,
    );
    // Both keep the nanoseconds in memory; only the output is truncated.
    let theirs_time = theirs.status.as_ref().unwrap().last_scale_time.as_ref().unwrap().0;
    let ours_time = ours.status.as_ref().unwrap().last_scale_time.unwrap().0;
    assert_eq!(theirs_time.as_nanosecond(), ours_time.as_nanosecond());
    assert_eq!(ours_time.subsec_nanosecond(), 987_654_321);

    // MicroTime (used by neither API here): both write six digits. (k8s-openapi also reads
    // other numbers of digits, which Go's layout and kube_apigen::MicroTime refuse.)
    for text in ["2026-11-29T19:05:49.123456Z", "2026-11-29T19:05:49.000000Z", "2026-11-29T21:05:49.500000+02:00"] {
        let ours: kube_apigen::MicroTime = decode_value(text, &json!(text));
        let theirs: theirs_meta::MicroTime = decode_value(text, &json!(text));
        assert_eq!(encode("ours", &ours), encode("theirs", &theirs), "{text}");
    }
}

#[test]
fn go_zero_time_is_null_only_in_support() {
    // Difference: Go (and kube_apigen::Time) write the zero time 0001-01-01T00:00:00Z as
    // `null`; k8s-openapi writes the timestamp itself.
    let input = json!({"type": "AbleToScale", "status": "True", "lastTransitionTime": "0001-01-01T00:00:00Z"});
    let (_, ours_out) = round_trip::<ours_hpa::HorizontalPodAutoscalerCondition>("ours", &input);
    let (_, theirs_out) = round_trip::<theirs_hpa::HorizontalPodAutoscalerCondition>("theirs", &input);
    assert_eq!(ours_out["lastTransitionTime"], Value::Null);
    assert_eq!(theirs_out["lastTransitionTime"], json!("0001-01-01T00:00:00Z"));
}

#[test]
fn int_or_string_agrees() {
    let input = json!([8080, "http", "25%", "80", 0, -1]);
    let (ours, ours_out) = round_trip::<Vec<kube_apigen::IntOrString>>("ours", &input);
    let (theirs, theirs_out) =
        round_trip::<Vec<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>>("theirs", &input);
    assert_json_eq("int-or-string via generated", &input, &ours_out);
    assert_json_eq("int-or-string via k8s-openapi", &input, &theirs_out);
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as Theirs;
    for (o, t) in ours.iter().zip(&theirs) {
        match (o, t) {
            (kube_apigen::IntOrString::Int(a), Theirs::Int(b)) => assert_eq!(a, b),
            (kube_apigen::IntOrString::String(a), Theirs::String(b)) => assert_eq!(a, b),
            _ => panic!("{o:?} decoded as {t:?}"),
        }
    }
}

#[test]
fn base64_line_breaks_are_accepted_only_by_support() {
    // Difference: Go's base64 decoder (and kube_apigen::Bytes) skips \r and \n; k8s-openapi's
    // ByteString uses a strict decoder and rejects them.
    let mut input = fixture("csr.json");
    let plain = input["spec"]["request"].as_str().unwrap().to_owned();
    let wrapped = format!("{}\n{}", &plain[..76], &plain[76..]);
    replace(&mut input, "/spec/request", json!(wrapped));

    let ours: ours_csr::CertificateSigningRequest = decode_value("ours", &input);
    assert_eq!(ours.spec.request.as_slice(), common::fixture_bytes("node-csr.pem").as_slice());
    let message = common::decode_err::<theirs_csr::CertificateSigningRequest>("theirs", &input);
    assert!(message.contains("Invalid"), "{message}");
}
