//! Tests of the patch engine against the schemas of `specs/` (through the generated
//! crate's catalog, as the server loads them).

use std::sync::LazyLock;

use serde_json::{Value, json};

use super::*;

static CATALOG: LazyLock<SchemaCatalog> = LazyLock::new(|| {
    SchemaCatalog::from_documents(generated::server::CATALOG.groups.iter().map(|gv| (gv.group, gv.version, gv.openapi)))
});

fn hpa_schema() -> &'static ObjectSchema {
    CATALOG.schema("autoscaling", "v2", "HorizontalPodAutoscaler").expect("HPA schema")
}

fn csr_schema() -> &'static ObjectSchema {
    CATALOG.schema("certificates.k8s.io", "v1", "CertificateSigningRequest").expect("CSR schema")
}

fn at(schema: &ObjectSchema, path: &[&str]) -> ObjectSchema {
    let mut node = schema.clone();
    for step in path {
        node = if *step == "[]" { node.items() } else { node.field(step) }
            .unwrap_or_else(|| panic!("no {step} in {path:?}"));
    }
    node
}

fn status_json(status: &kube_apigen_core::Status) -> Value {
    serde_json::to_value(status).unwrap()
}

// ---- schema catalog ---------------------------------------------------------------------

#[test]
fn catalog_finds_the_kinds_of_the_generated_crate() {
    let hpa = hpa_schema();
    assert_eq!(hpa.name(), Some("io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"));
    assert_eq!(hpa.group_version_kind(), Some(("autoscaling", "v2", "HorizontalPodAutoscaler")));
    assert!(CATALOG.schema("autoscaling", "v1", "HorizontalPodAutoscaler").is_none());
    // Shared types are not kinds of these group-versions (`Status` is core/v1's only).
    assert!(CATALOG.schema("autoscaling", "v2", "Status").is_none());
    assert!(CATALOG.schema("", "v1", "Status").is_some());

    let conditions = at(hpa, &["status", "conditions"]);
    assert_eq!(conditions.kind(), SchemaKind::Array);
    assert_eq!(conditions.list_type(), Some(ListType::Map(vec!["type".into()])));
    assert_eq!(conditions.patch_strategies(), vec![PatchStrategy::Merge]);
    assert_eq!(conditions.patch_merge_key().as_deref(), Some("type"));
    assert_eq!(conditions.apply_list_type(), ListType::Map(vec!["type".into()]));
    let condition = conditions.items().unwrap();
    assert_eq!(condition.type_name(), "HorizontalPodAutoscalerCondition");
    assert_eq!(condition.kind(), SchemaKind::Struct);

    let metrics = at(hpa, &["spec", "metrics"]);
    assert_eq!(metrics.list_type(), Some(ListType::Atomic));
    assert_eq!(metrics.patch_strategies(), vec![]);
    assert_eq!(metrics.apply_list_type(), ListType::Atomic);

    assert_eq!(at(hpa, &["spec"]).type_name(), "HorizontalPodAutoscalerSpec");
    assert!(at(hpa, &["spec"]).has_empty_object_default());
    assert_eq!(at(hpa, &["spec", "maxReplicas"]).scalar_type(), ("integer", "int32"));
    assert_eq!(at(hpa, &["metadata", "labels"]).kind(), SchemaKind::Map);
    let finalizers = at(hpa, &["metadata", "finalizers"]);
    assert_eq!(finalizers.list_type(), Some(ListType::Set));
    assert_eq!(finalizers.patch_strategies(), vec![PatchStrategy::Merge]);
    let owners = at(hpa, &["metadata", "ownerReferences"]);
    assert_eq!(owners.apply_list_type(), ListType::Map(vec!["uid".into()]));
    assert_eq!(at(hpa, &["metadata", "ownerReferences", "[]"]).map_type(), Some(MapType::Atomic));
    assert_eq!(at(hpa, &["metadata", "managedFields"]).apply_list_type(), ListType::Atomic);

    let csr = csr_schema();
    let conditions = at(csr, &["status", "conditions"]);
    assert_eq!(conditions.list_type(), Some(ListType::Map(vec!["type".into()])));
    assert_eq!(conditions.patch_strategies(), vec![]);
    assert_eq!(conditions.apply_list_type(), ListType::Map(vec!["type".into()]));
    assert_eq!(at(csr, &["spec", "usages"]).apply_list_type(), ListType::Atomic);
    assert_eq!(at(csr, &["spec", "extra"]).kind(), SchemaKind::Map);
    assert_eq!(at(csr, &["spec", "extra", "anyKey"]).kind(), SchemaKind::Array);
}

// ---- JSON patch and merge patch ---------------------------------------------------------

fn operations(value: Value) -> json_patch::Patch {
    serde_json::from_value(value).unwrap()
}

#[test]
fn json_patch_applies_operations_in_order() {
    let original = json!({"spec": {"minReplicas": 1, "maxReplicas": 5, "metrics": [{"type": "Resource"}]}});
    let patch = operations(json!([
        {"op": "test", "path": "/spec/maxReplicas", "value": 5},
        {"op": "replace", "path": "/spec/minReplicas", "value": 2},
        {"op": "add", "path": "/metadata", "value": {"labels": {"a": "b"}}},
        {"op": "add", "path": "/spec/metrics/-", "value": {"type": "Pods"}},
        {"op": "remove", "path": "/spec/metrics/0"},
    ]));
    assert_eq!(
        json_patch(&original, &patch).unwrap(),
        json!({
            "metadata": {"labels": {"a": "b"}},
            "spec": {"minReplicas": 2, "maxReplicas": 5, "metrics": [{"type": "Pods"}]}
        })
    );
}

#[test]
fn json_patch_tests_a_missing_member_as_null() {
    // What kube-runtime's finalizer helper sends for an object without finalizers.
    let add_first_finalizer = operations(json!([
        {"op": "test", "path": "/metadata/finalizers", "value": null},
        {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/cleanup"]},
    ]));
    let original = json!({"metadata": {"name": "web"}});
    let patched = json_patch(&original, &add_first_finalizer).unwrap();
    assert_eq!(patched, json!({"metadata": {"name": "web", "finalizers": ["example.com/cleanup"]}}));
    let explicit_null = json!({"metadata": {"name": "web", "finalizers": null}});
    assert_eq!(json_patch(&explicit_null, &add_first_finalizer).unwrap(), patched);

    let refused = [
        (json!({"metadata": {"finalizers": ["other"]}}), "a present member is not null"),
        (json!({"spec": {}}), "the parent object is missing"),
        (json!({"metadata": []}), "the parent is no object"),
    ];
    for (original, why) in refused {
        let error = json_patch(&original, &add_first_finalizer).unwrap_err();
        assert!(matches!(error, PatchError::JsonPatchFailed(_)), "{why}: {error:?}");
    }
}

#[test]
fn json_patch_failures_are_the_api_servers_422() {
    let original = json!({"spec": {"maxReplicas": 5}});
    let failing = [
        json!([{"op": "test", "path": "/spec/maxReplicas", "value": 6}]),
        json!([{"op": "remove", "path": "/spec/minReplicas"}]),
        json!([{"op": "replace", "path": "/status/x", "value": 1}]),
    ];
    for patch in failing {
        let error = json_patch(&original, &operations(patch.clone())).unwrap_err();
        assert!(matches!(error, PatchError::JsonPatchFailed(_)), "{patch}: {error:?}");
        assert_eq!(
            status_json(&error.to_status()),
            json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "the server rejected our request due to an error in our request",
                "reason": "Invalid",
                "details": {},
                "code": 422
            })
        );
    }
    let many = json_patch::Patch(vec![
        serde_json::from_value(
            json!({"op": "test", "path": "/spec", "value": {"maxReplicas": 5}})
        )
        .unwrap();
        MAX_JSON_PATCH_OPERATIONS + 1
    ]);
    let status = json_patch(&original, &many).unwrap_err().to_status();
    assert_eq!(status.code(), 413);
    assert_eq!(
        status.message.as_deref(),
        Some("Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")
    );
}

#[test]
fn merge_patch_is_rfc_7386() {
    let original = json!({
        "metadata": {"labels": {"a": "1", "b": "2"}},
        "spec": {"minReplicas": 1, "maxReplicas": 5, "metrics": [{"type": "Resource"}, {"type": "Pods"}]}
    });
    let patch = json!({
        "metadata": {"labels": {"a": null, "c": "3"}},
        "spec": {"minReplicas": null, "metrics": [{"type": "External"}], "behavior": {"scaleUp": {"x": null}}}
    });
    assert_eq!(
        merge_patch(&original, &patch),
        json!({
            "metadata": {"labels": {"b": "2", "c": "3"}},
            "spec": {"maxReplicas": 5, "metrics": [{"type": "External"}], "behavior": {"scaleUp": {}}}
        })
    );
    assert!(check_merge_patch(&patch).is_ok());
    let error = check_merge_patch(&json!(null)).unwrap_err();
    assert_eq!(error.to_status().code(), 400);
    assert_eq!(error.to_status().message.as_deref(), Some("Invalid JSON Patch"));
}

// ---- strategic merge patch --------------------------------------------------------------

struct SmpCase {
    name: &'static str,
    original: Value,
    patch: Value,
    expected: Value,
}

fn hpa_with_conditions(conditions: Value) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "status": {"conditions": conditions}})
}

#[test]
fn strategic_merge_table() {
    let cases = vec![
        SmpCase {
            name: "list with merge strategy: items merge by the merge key, patch items in patch order",
            original: hpa_with_conditions(json!([
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound"},
            ])),
            patch: json!({"status": {"conditions": [
                {"type": "ScalingActive", "status": "False"},
                {"type": "ScalingLimited", "status": "True"},
            ]}}),
            expected: hpa_with_conditions(json!([
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "False", "reason": "ValidMetricFound"},
                {"type": "ScalingLimited", "status": "True"},
            ])),
        },
        SmpCase {
            name: "new items of a merged list come before the server's (the API server's order)",
            original: hpa_with_conditions(json!([{"type": "AbleToScale", "status": "True"}])),
            patch: json!({"status": {"conditions": [{"type": "ScalingLimited", "status": "True"}]}}),
            expected: hpa_with_conditions(json!([
                {"type": "ScalingLimited", "status": "True"},
                {"type": "AbleToScale", "status": "True"},
            ])),
        },
        SmpCase {
            name: "$patch: delete removes the item with that key",
            original: hpa_with_conditions(json!([
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "True"},
            ])),
            patch: json!({"status": {"conditions": [{"type": "AbleToScale", "$patch": "delete"}]}}),
            expected: hpa_with_conditions(json!([{"type": "ScalingActive", "status": "True"}])),
        },
        SmpCase {
            name: "$patch: replace in a list makes the other patch items the list",
            original: hpa_with_conditions(json!([
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "True"},
            ])),
            patch: json!({"status": {"conditions": [{"$patch": "replace"}, {"type": "ScalingLimited", "status": "False"}]}}),
            expected: hpa_with_conditions(json!([{"type": "ScalingLimited", "status": "False"}])),
        },
        SmpCase {
            name: "atomic list (spec.metrics) is replaced",
            original: json!({"spec": {"maxReplicas": 5, "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}},
                {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}}},
            ]}}),
            patch: json!({"spec": {"metrics": [
                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
            ]}}),
            expected: json!({"spec": {"maxReplicas": 5, "metrics": [
                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
            ]}}),
        },
        SmpCase {
            name: "null deletes; maps merge recursively",
            original: json!({
                "metadata": {"name": "web", "labels": {"app": "web", "tier": "backend"}},
                "spec": {"minReplicas": 2, "maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}
            }),
            patch: json!({
                "metadata": {"labels": {"tier": null, "stage": "two"}},
                "spec": {"minReplicas": null, "scaleTargetRef": {"name": "web2"}, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": null}}}
            }),
            expected: json!({
                "metadata": {"name": "web", "labels": {"app": "web", "stage": "two"}},
                "spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "web2"}, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}
            }),
        },
        SmpCase {
            name: "$patch: replace on an object",
            original: json!({"spec": {"minReplicas": 2, "maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}}),
            patch: json!({"spec": {"$patch": "replace", "maxReplicas": 3, "scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}}),
            expected: json!({"spec": {"maxReplicas": 3, "scaleTargetRef": {"kind": "StatefulSet", "name": "db"}}}),
        },
        SmpCase {
            name: "$patch: delete on an object empties it",
            original: json!({"spec": {"maxReplicas": 5, "behavior": {"scaleUp": {"selectPolicy": "Max"}}}}),
            patch: json!({"spec": {"behavior": {"$patch": "delete"}}}),
            expected: json!({"spec": {"maxReplicas": 5, "behavior": {}}}),
        },
        SmpCase {
            name: "$patch: merge is the default, spelled out",
            original: json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}}),
            patch: json!({"spec": {"$patch": "merge", "scaleTargetRef": {"name": "api"}}}),
            expected: json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "api"}}}),
        },
        SmpCase {
            name: "finalizers: a set, merged as a union",
            original: json!({"metadata": {"finalizers": ["a", "b"]}}),
            patch: json!({"metadata": {"finalizers": ["b", "c"]}}),
            expected: json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
        },
        SmpCase {
            name: "$deleteFromPrimitiveList removes values of a list of scalars",
            original: json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            patch: json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b", "x"]}}),
            expected: json!({"metadata": {"finalizers": ["a", "c"]}}),
        },
        SmpCase {
            name: "$setElementOrder orders a merged list of scalars (kubectl's client-side apply)",
            original: json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            patch: json!({"metadata": {
                "$setElementOrder/finalizers": ["c", "a", "d"],
                "$deleteFromPrimitiveList/finalizers": ["b"],
                "finalizers": ["d"]
            }}),
            expected: json!({"metadata": {"finalizers": ["c", "a", "d"]}}),
        },
        SmpCase {
            name: "$setElementOrder orders a list merged by key",
            original: hpa_with_conditions(json!([
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "True"},
            ])),
            patch: json!({"status": {
                "$setElementOrder/conditions": [{"type": "ScalingActive"}, {"type": "ScalingLimited"}, {"type": "AbleToScale"}],
                "conditions": [{"type": "ScalingLimited", "status": "False"}]
            }}),
            expected: hpa_with_conditions(json!([
                {"type": "ScalingActive", "status": "True"},
                {"type": "ScalingLimited", "status": "False"},
                {"type": "AbleToScale", "status": "True"},
            ])),
        },
        SmpCase {
            name: "$setElementOrder: a server-only item goes before the listed item it preceded in the live list",
            original: hpa_with_conditions(json!([
                {"type": "A", "status": "True"},
                {"type": "B", "status": "True"},
                {"type": "C", "status": "True"},
            ])),
            patch: json!({"status": {
                "$setElementOrder/conditions": [{"type": "C"}, {"type": "A"}],
                "conditions": [{"type": "A", "status": "False"}]
            }}),
            expected: hpa_with_conditions(json!([
                {"type": "B", "status": "True"},
                {"type": "C", "status": "True"},
                {"type": "A", "status": "False"},
            ])),
        },
        SmpCase {
            name: "$retainKeys clears the keys it does not list",
            original: json!({"spec": {"behavior": {"scaleUp": {"selectPolicy": "Max", "stabilizationWindowSeconds": 0}}}}),
            patch: json!({"spec": {"behavior": {"scaleUp": {"$retainKeys": ["selectPolicy"], "selectPolicy": "Min"}}}}),
            expected: json!({"spec": {"behavior": {"scaleUp": {"selectPolicy": "Min"}}}}),
        },
        SmpCase {
            name: "a new field takes the patch value without its nulls and directives",
            original: json!({"spec": {"maxReplicas": 5}}),
            patch: json!({"spec": {"behavior": {"scaleUp": {"selectPolicy": null, "policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}}}}),
            expected: json!({"spec": {"maxReplicas": 5, "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}}}}),
        },
    ];
    for case in cases {
        let got = strategic_merge(&case.original, &case.patch, Some(hpa_schema()))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(got, case.expected, "{}", case.name);
    }
}

#[test]
fn strategic_merge_of_a_csr_merges_list_map_conditions() {
    // CSR status.conditions: x-kubernetes-list-type: map, keys [type], no patch strategy.
    let original =
        json!({"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "AutoApproved"}]}});
    let patch = json!({"status": {"conditions": [{"type": "Approved", "message": "ok"}, {"type": "Failed", "status": "True"}]}});
    assert_eq!(
        strategic_merge(&original, &patch, Some(csr_schema())).unwrap(),
        json!({"status": {"conditions": [
            {"type": "Approved", "status": "True", "reason": "AutoApproved", "message": "ok"},
            {"type": "Failed", "status": "True"},
        ]}})
    );
    // spec.usages is atomic: replaced.
    let original = json!({"spec": {"usages": ["digital signature", "client auth"]}});
    let patch = json!({"spec": {"usages": ["server auth"]}});
    assert_eq!(
        strategic_merge(&original, &patch, Some(csr_schema())).unwrap(),
        json!({"spec": {"usages": ["server auth"]}})
    );
}

#[test]
fn strategic_merge_of_kubectl_client_side_apply() {
    // The second `kubectl apply -f` of apiserver/tests/fixtures/kubectl/hpa-apply-changed.yaml:
    // kubectl's three-way patch from the last applied configuration.
    let last_applied = r#"{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"annotations":{},"labels":{"stage":"two"},"name":"applied","namespace":"default"},"spec":{"maxReplicas":4,"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"applied"}}}"#;
    let live = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": "applied",
            "namespace": "default",
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
            "resourceVersion": "7"
        },
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "applied"}, "minReplicas": 1, "maxReplicas": 3},
        "status": {"currentReplicas": 1, "desiredReplicas": 1}
    });
    let patch = json!({
        "metadata": {
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": last_applied},
            "labels": {"stage": "two"}
        },
        "spec": {"maxReplicas": 4}
    });
    let got = strategic_merge(&live, &patch, Some(hpa_schema())).unwrap();
    assert_eq!(got["spec"]["maxReplicas"], json!(4));
    assert_eq!(got["metadata"]["labels"], json!({"stage": "two"}));
    assert_eq!(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"], json!(last_applied));
    assert_eq!(got["status"], live["status"]);
    assert_eq!(got["metadata"]["resourceVersion"], json!("7"));
}

#[test]
fn strategic_merge_without_schema_merges_objects_and_replaces_lists() {
    let original = json!({"a": {"b": 1, "c": [1, 2]}, "d": [{"name": "x"}]});
    let patch = json!({"a": {"c": [3]}, "d": [{"name": "y"}]});
    assert_eq!(
        strategic_merge(&original, &patch, None).unwrap(),
        json!({"a": {"b": 1, "c": [3]}, "d": [{"name": "y"}]})
    );
}

#[test]
fn strategic_merge_errors_are_the_api_servers() {
    let hpa = Some(hpa_schema());
    let error = strategic_merge(&json!({}), &json!([1]), hpa).unwrap_err();
    assert_eq!(
        status_json(&error.to_status()),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "json: cannot unmarshal array into Go value of type map[string]interface {}",
            "reason": "BadRequest", "code": 400
        })
    );

    let original = json!({"spec": {"foo": {"a": 1}}});
    let error = strategic_merge(&original, &json!({"spec": {"foo": {"b": 2}}}), hpa).unwrap_err();
    assert_eq!(
        status_json(&error.to_status()),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "unable to find api field in struct HorizontalPodAutoscalerSpec for the json field \"foo\"",
            "reason": "BadRequest", "code": 400
        })
    );
    // An unknown scalar field is not looked up: it is simply set (and left to validation).
    assert_eq!(
        strategic_merge(&json!({"spec": {}}), &json!({"spec": {"foo": 1}}), hpa).unwrap(),
        json!({"spec": {"foo": 1}})
    );

    let original = hpa_with_conditions(json!([{"type": "A"}]));
    let error = strategic_merge(&original, &json!({"status": {"conditions": [{"status": "True"}]}}), hpa).unwrap_err();
    assert_eq!(error, PatchError::Internal("map: map[status:True] does not contain declared merge key: type".into()));
    assert_eq!(error.to_status().code(), 400);

    let error = strategic_merge(&original, &json!({"status": {"conditions": [{"type": "A", "$patch": "bogus"}]}}), hpa)
        .unwrap_err();
    assert_eq!(error, PatchError::Internal("unknown patch type: bogus in map: map[$patch:bogus type:A]".into()));
    // A directive that is no string prints as Go's `%s` of it; numbers as `%v` does.
    for (directive, printed) in [
        (json!(1e6), "unknown patch type: %!s(float64=1e+06) in map: map[$patch:1e+06 type:A]"),
        (json!(["x", 1]), "unknown patch type: [x %!s(int64=1)] in map: map[$patch:[x 1] type:A]"),
    ] {
        let patch = json!({"status": {"conditions": [{"type": "A", "$patch": directive}]}});
        assert_eq!(strategic_merge(&original, &patch, hpa).unwrap_err(), PatchError::Internal(printed.into()));
    }

    let error = strategic_merge(
        &json!({"spec": {"behavior": {"scaleUp": {}}}}),
        &json!({"spec": {"behavior": {"scaleUp": {"$retainKeys": ["selectPolicy"], "stabilizationWindowSeconds": 5}}}}),
        hpa,
    )
    .unwrap_err();
    assert_eq!(error.to_status().code(), 400);
    assert_eq!(error.to_status().message.as_deref(), Some("invalid patch format of retainKeys"));

    let error =
        strategic_merge(&json!({"metadata": {}}), &json!({"metadata": {"$deleteFromPrimitiveList": ["a"]}}), hpa)
            .unwrap_err();
    assert_eq!(error, PatchError::BadRequest("invalid patch format of primitive list".into()));

    let error = strategic_merge(
        &original,
        &json!({"status": {
            "$setElementOrder/conditions": [{"type": "A"}],
            "conditions": [{"type": "B", "status": "True"}]
        }}),
        hpa,
    )
    .unwrap_err();
    assert_eq!(
        error,
        PatchError::Internal(
            "the order in patch list:\n[map[status:True type:B]]\n doesn't match $setElementOrder list:\n[map[type:A]]"
                .into()
        )
    );
}

// ---- server-side apply ------------------------------------------------------------------

const T1: &str = "2024-05-01T10:00:00Z";
const T2: &str = "2024-05-01T10:05:00Z";
const T3: &str = "2024-05-01T10:10:00Z";

fn hpa_config(spec: Value) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "ssa", "namespace": "default"},
        "spec": spec
    })
}

fn target() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "ssa"})
}

fn apply_hpa(live: Option<&Value>, config: &Value, manager: &str, force: bool, now: &str) -> Result<Value, ApplyError> {
    apply(live, config, manager, force, Some(hpa_schema()), now)
}

fn kubectl_spec_fields() -> Value {
    json!({"f:spec": {
        "f:maxReplicas": {},
        "f:minReplicas": {},
        "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}
    }})
}

#[test]
fn apply_creates_with_an_apply_entry() {
    let config = hpa_config(json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}));
    let created = apply_hpa(None, &config, "kubectl", false, T1).unwrap();
    assert_eq!(
        created,
        json!({
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {
                "name": "ssa",
                "namespace": "default",
                "managedFields": [{
                    "manager": "kubectl",
                    "operation": "Apply",
                    "apiVersion": "autoscaling/v2",
                    "time": T1,
                    "fieldsType": "FieldsV1",
                    "fieldsV1": kubectl_spec_fields()
                }]
            },
            "spec": {"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}
        })
    );
}

#[test]
fn reapply_changes_fields_and_removes_fields_no_longer_applied() {
    let first = hpa_config(json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}));
    let live = apply_hpa(None, &first, "kubectl", false, T1).unwrap();

    // Same configuration: nothing changes, not even the time.
    let same = apply_hpa(Some(&live), &first, "kubectl", false, T2).unwrap();
    assert_eq!(same, live);

    // maxReplicas changed, minReplicas no longer applied: removed (nobody else owns it).
    let second = hpa_config(json!({"scaleTargetRef": target(), "maxReplicas": 5}));
    let updated = apply_hpa(Some(&live), &second, "kubectl", false, T2).unwrap();
    assert_eq!(updated["spec"], json!({"scaleTargetRef": target(), "maxReplicas": 5}));
    assert_eq!(
        updated["metadata"]["managedFields"],
        json!([{
            "manager": "kubectl", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T2,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:maxReplicas": {}, "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}}
        }])
    );

    // Fields set by others stay when no longer applied; labels emptied by removal go.
    let mut edited = updated.clone();
    edited["spec"]["behavior"] = json!({"scaleDown": {"stabilizationWindowSeconds": 30}});
    let edited =
        record_update_with_schema(Some(&updated), &edited, "kubectl-edit", "autoscaling/v2", T3, Some(hpa_schema()));
    let with_labels = hpa_config(json!({"scaleTargetRef": target(), "maxReplicas": 5}));
    let mut with_labels = with_labels;
    with_labels["metadata"]["labels"] = json!({"app": "ssa"});
    let labelled = apply_hpa(Some(&edited), &with_labels, "kubectl", false, T3).unwrap();
    assert_eq!(labelled["metadata"]["labels"], json!({"app": "ssa"}));
    let unlabelled = apply_hpa(Some(&labelled), &second, "kubectl", false, T3).unwrap();
    assert_eq!(unlabelled["metadata"].get("labels"), None);
    assert_eq!(unlabelled["spec"]["behavior"], json!({"scaleDown": {"stabilizationWindowSeconds": 30}}));
}

fn conflict_status() -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas",
        "reason": "Conflict",
        "details": {"causes": [{
            "reason": "FieldManagerConflict",
            "message": "conflict with \"kubectl\"",
            "field": ".spec.maxReplicas"
        }]},
        "code": 409
    })
}

#[test]
fn apply_conflicts_with_another_manager_unless_forced() {
    let mine = hpa_config(json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}));
    let live = apply_hpa(None, &mine, "kubectl", false, T1).unwrap();

    let theirs = hpa_config(json!({"scaleTargetRef": target(), "maxReplicas": 8}));
    let error = apply_hpa(Some(&live), &theirs, "other", false, T2).unwrap_err();
    assert_eq!(
        error,
        ApplyError::Conflict(vec![Conflict {
            manager: "kubectl".into(),
            operation: "Apply".into(),
            api_version: "autoscaling/v2".into(),
            subresource: String::new(),
            path: ".spec.maxReplicas".into(),
        }])
    );
    assert_eq!(status_json(&error.to_status("autoscaling", "horizontalpodautoscalers", "ssa")), conflict_status());

    // --force-conflicts: other takes maxReplicas; scaleTargetRef (same value) is shared.
    let forced = apply_hpa(Some(&live), &theirs, "other", true, T2).unwrap();
    assert_eq!(forced["spec"], json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 8}));
    assert_eq!(
        forced["metadata"]["managedFields"],
        json!([
            {
                "manager": "kubectl", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T1,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:minReplicas": {}, "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}}
            },
            {
                "manager": "other", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T2,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:maxReplicas": {}, "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}}
            }
        ])
    );

    // kubectl re-applies maxReplicas 3: now it conflicts with other.
    let error = apply_hpa(Some(&forced), &mine, "kubectl", false, T3).unwrap_err();
    assert_eq!(error.message(), "Apply failed with 1 conflict: conflict with \"other\": .spec.maxReplicas");

    // Removing scaleTargetRef from kubectl's configuration keeps it: other owns it too.
    let fewer = hpa_config(json!({"minReplicas": 1}));
    let kept = apply_hpa(Some(&forced), &fewer, "kubectl", false, T3).unwrap();
    assert_eq!(kept["spec"], json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 8}));
}

#[test]
fn apply_of_the_same_value_shares_ownership() {
    let mine = hpa_config(json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}));
    let live = apply_hpa(None, &mine, "kubectl", false, T1).unwrap();
    let theirs = hpa_config(json!({"maxReplicas": 3}));
    let shared = apply_hpa(Some(&live), &theirs, "other", false, T2).unwrap();
    assert_eq!(shared["spec"], live["spec"]);
    // Nothing changed, so the new entry has no time (as the API server).
    assert_eq!(
        shared["metadata"]["managedFields"],
        json!([
            {
                "manager": "other", "operation": "Apply", "apiVersion": "autoscaling/v2",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:maxReplicas": {}}}
            },
            {
                "manager": "kubectl", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T1,
                "fieldsType": "FieldsV1", "fieldsV1": kubectl_spec_fields()
            }
        ])
    );
    // Both own it: either one changing it conflicts with the other.
    let error = apply_hpa(Some(&shared), &hpa_config(json!({"maxReplicas": 4})), "other", false, T3).unwrap_err();
    assert_eq!(error.message(), "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas");
}

#[test]
fn apply_conflicts_with_updates_and_lists_several_conflicts() {
    let mine = hpa_config(json!({"scaleTargetRef": target(), "minReplicas": 1, "maxReplicas": 3}));
    let live = apply_hpa(None, &mine, "kubectl", false, T1).unwrap();

    // kubectl edit changes minReplicas and maxReplicas: they become its fields.
    let mut edited = live.clone();
    edited["spec"]["minReplicas"] = json!(2);
    edited["spec"]["maxReplicas"] = json!(6);
    let edited =
        record_update_with_schema(Some(&live), &edited, "kubectl-edit", "autoscaling/v2", T2, Some(hpa_schema()));
    assert_eq!(
        edited["metadata"]["managedFields"],
        json!([
            {
                "manager": "kubectl", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T1,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}}
            },
            {
                "manager": "kubectl-edit", "operation": "Update", "apiVersion": "autoscaling/v2", "time": T2,
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:maxReplicas": {}, "f:minReplicas": {}}}
            }
        ])
    );

    let error = apply_hpa(Some(&edited), &mine, "kubectl", false, T3).unwrap_err();
    assert_eq!(
        error.message(),
        "Apply failed with 2 conflicts: conflicts with \"kubectl-edit\" using autoscaling/v2:\n- .spec.maxReplicas\n- .spec.minReplicas"
    );
    assert_eq!(
        status_json(&error.to_status("autoscaling", "horizontalpodautoscalers", "ssa"))["details"],
        json!({"causes": [
            {"reason": "FieldManagerConflict", "message": "conflict with \"kubectl-edit\" using autoscaling/v2", "field": ".spec.maxReplicas"},
            {"reason": "FieldManagerConflict", "message": "conflict with \"kubectl-edit\" using autoscaling/v2", "field": ".spec.minReplicas"},
        ]})
    );

    // Several managers: grouped, by manager.
    let theirs = hpa_config(json!({"behavior": {"scaleUp": {"selectPolicy": "Max"}}}));
    let with_other = apply_hpa(Some(&edited), &theirs, "other", false, T2).unwrap();
    let mut everything = mine.clone();
    everything["spec"]["behavior"] = json!({"scaleUp": {"selectPolicy": "Min"}});
    let error = apply_hpa(Some(&with_other), &everything, "kubectl", false, T3).unwrap_err();
    assert_eq!(
        error.message(),
        "Apply failed with 3 conflicts: conflicts with \"kubectl-edit\" using autoscaling/v2:\n- .spec.maxReplicas\n- .spec.minReplicas\nconflicts with \"other\":\n- .spec.behavior.scaleUp.selectPolicy"
    );
}

#[test]
fn managed_fields_encode_list_maps_sets_and_maps() {
    let config = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "ssa", "labels": {"app": "ssa"}, "finalizers": ["example.com/a"]},
        "spec": {
            "scaleTargetRef": target(),
            "maxReplicas": 3,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        },
        "status": {"desiredReplicas": 1, "conditions": [{"type": "AbleToScale", "status": "True"}]}
    });
    let created = apply_hpa(None, &config, "ctl", false, T1).unwrap();
    assert_eq!(
        created["metadata"]["managedFields"][0]["fieldsV1"],
        json!({
            "f:metadata": {
                "f:finalizers": {"v:\"example.com/a\"": {}},
                "f:labels": {"f:app": {}}
            },
            "f:spec": {
                "f:maxReplicas": {},
                "f:metrics": {},
                "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}
            },
            "f:status": {
                "f:conditions": {"k:{\"type\":\"AbleToScale\"}": {".": {}, "f:status": {}, "f:type": {}}},
                "f:desiredReplicas": {}
            }
        })
    );

    // A condition merged by key, another manager's condition kept; removing one of mine.
    let mut controller = created.clone();
    controller["status"]["conditions"] = json!([
        {"type": "AbleToScale", "status": "True"},
        {"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric"}
    ]);
    let controller = record_update_with_schema(
        Some(&created),
        &controller,
        "kube-controller-manager",
        "autoscaling/v2",
        T2,
        Some(hpa_schema()),
    );
    assert_eq!(
        controller["metadata"]["managedFields"][1],
        json!({
            "manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v2", "time": T2,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:conditions": {"k:{\"type\":\"ScalingActive\"}": {
                ".": {}, "f:reason": {}, "f:status": {}, "f:type": {}
            }}}}
        })
    );
    let mut fewer = config.clone();
    fewer["status"]["conditions"] = json!([]);
    fewer["metadata"]["finalizers"] = json!([]);
    let reapplied = apply_hpa(Some(&controller), &fewer, "ctl", false, T3).unwrap();
    assert_eq!(
        reapplied["status"]["conditions"],
        json!([{"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric"}])
    );
    assert_eq!(reapplied["metadata"].get("finalizers"), None);
}

#[test]
fn record_update_of_a_create_and_an_edit() {
    let object = json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "uid": "1", "resourceVersion": "1"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]},
        "status": {"conditions": [{"type": "AbleToScale", "status": "True"}]}
    });
    let created = record_update_with_schema(None, &object, "kubectl-create", "autoscaling/v2", T1, Some(hpa_schema()));
    assert_eq!(
        created["metadata"]["managedFields"],
        json!([{
            "manager": "kubectl-create", "operation": "Update", "apiVersion": "autoscaling/v2", "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {
                    "f:maxReplicas": {},
                    "f:metrics": {},
                    "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}
                },
                "f:status": {"f:conditions": {
                    ".": {},
                    "k:{\"type\":\"AbleToScale\"}": {".": {}, "f:status": {}, "f:type": {}}
                }}
            }
        }])
    );

    // An edit that changes nothing keeps the entries as they are.
    assert_eq!(
        record_update_with_schema(Some(&created), &created, "kubectl-edit", "autoscaling/v2", T2, Some(hpa_schema())),
        created
    );

    // The schema-less record_update owns lists whole.
    let plain = record_update(None, &object, "kubectl-create", "autoscaling/v2", T1);
    assert_eq!(plain["metadata"]["managedFields"][0]["fieldsV1"]["f:status"], json!({".": {}, "f:conditions": {}}));

    // `managedFields: []` in the request resets ownership to this write's fields.
    let mut reset = created.clone();
    reset["metadata"]["managedFields"] = json!([]);
    reset["spec"]["maxReplicas"] = json!(6);
    let reset =
        record_update_with_schema(Some(&created), &reset, "kubectl-replace", "autoscaling/v2", T2, Some(hpa_schema()));
    assert_eq!(
        reset["metadata"]["managedFields"],
        json!([{
            "manager": "kubectl-replace", "operation": "Update", "apiVersion": "autoscaling/v2", "time": T2,
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:maxReplicas": {}}}
        }])
    );
}

#[test]
fn apply_refuses_invalid_configurations() {
    let mut wrong_version = hpa_config(json!({"maxReplicas": 3}));
    wrong_version["apiVersion"] = json!("autoscaling/v1");
    let error = apply_hpa(None, &wrong_version, "kubectl", false, T1).unwrap_err();
    assert_eq!(
        status_json(&error.to_status("autoscaling", "horizontalpodautoscalers", "ssa")),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "invalid object type: autoscaling/v1, Kind=HorizontalPodAutoscaler",
            "reason": "BadRequest", "code": 400
        })
    );

    let mut with_managed = hpa_config(json!({"maxReplicas": 3}));
    with_managed["metadata"]["managedFields"] = json!([]);
    let error = apply_hpa(None, &with_managed, "kubectl", false, T1).unwrap_err();
    assert_eq!(error, ApplyError::Invalid("metadata.managedFields must be nil".into()));

    let mut duplicated = hpa_config(json!({"maxReplicas": 3}));
    duplicated["status"] = json!({"conditions": [{"type": "A", "status": "True"}, {"type": "A", "status": "False"}]});
    let error = apply_hpa(None, &duplicated, "kubectl", false, T1).unwrap_err();
    let status = error.to_status("autoscaling", "horizontalpodautoscalers", "ssa");
    assert_eq!(status.code(), 400);
    assert_eq!(
        status.message.as_deref(),
        Some(
            "failed to create typed patch object (default/ssa; autoscaling/v2, Kind=HorizontalPodAutoscaler): .status.conditions: duplicate entries for key [type=\"A\"]"
        )
    );

    // A key field missing from an item takes its schema default (type: "").
    let mut keyless = hpa_config(json!({"maxReplicas": 3}));
    keyless["status"] = json!({"conditions": [{"status": "True"}]});
    let applied = apply_hpa(None, &keyless, "kubectl", false, T1).unwrap();
    assert_eq!(
        applied["metadata"]["managedFields"][0]["fieldsV1"]["f:status"],
        json!({"f:conditions": {"k:{\"type\":\"\"}": {".": {}, "f:status": {}}}})
    );

    let error = apply_hpa(None, &json!([]), "kubectl", false, T1).unwrap_err();
    assert_eq!(error.to_status("autoscaling", "horizontalpodautoscalers", "ssa").code(), 400);
}

#[test]
fn apply_without_schema_uses_the_live_kind() {
    let live = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1, "list": [1, 2]}});
    let config =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"list": [3]}});
    let applied = apply(Some(&live), &config, "m", false, None, T1).unwrap();
    assert_eq!(applied["spec"], json!({"a": 1, "list": [3]}));
    // Without a schema every object field is a map entry (a member too, as structured-merge-diff
    // records untyped objects) and lists are atomic.
    assert_eq!(applied["metadata"]["managedFields"][0]["fieldsV1"], json!({"f:spec": {".": {}, "f:list": {}}}));
    let other = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "w"}});
    assert_eq!(
        apply(Some(&live), &other, "m", false, None, T1).unwrap_err(),
        ApplyError::Invalid("invalid object type: example.com/v1, Kind=Gadget".into())
    );
}

#[test]
fn apply_through_a_subresource_has_its_own_entry() {
    let created =
        apply_hpa(None, &hpa_config(json!({"scaleTargetRef": target(), "maxReplicas": 3})), "kubectl", false, T1)
            .unwrap();
    let mut status = hpa_config(json!({}));
    status.as_object_mut().unwrap().remove("spec");
    status["status"] = json!({"desiredReplicas": 2, "conditions": [{"type": "AbleToScale", "status": "True"}]});
    let schema = Some(hpa_schema());
    let with_status =
        apply_subresource(Some(&created), &status, "hpa-controller", "status", false, schema, T2).unwrap();
    assert_eq!(
        with_status["metadata"]["managedFields"][1],
        json!({
            "manager": "hpa-controller", "operation": "Apply", "apiVersion": "autoscaling/v2", "time": T2,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {
                "f:conditions": {"k:{\"type\":\"AbleToScale\"}": {".": {}, "f:status": {}, "f:type": {}}},
                "f:desiredReplicas": {}
            }},
            "subresource": "status"
        })
    );
    // Re-applying through the subresource finds its own entry: no conflict with itself.
    status["status"]["desiredReplicas"] = json!(3);
    let again = apply_subresource(Some(&with_status), &status, "hpa-controller", "status", false, schema, T3).unwrap();
    assert_eq!(again["status"]["desiredReplicas"], json!(3));
    assert_eq!(again["metadata"]["managedFields"].as_array().unwrap().len(), 2);
    // Another manager changing it conflicts with the subresource entry.
    status["status"]["desiredReplicas"] = json!(4);
    let error = apply_subresource(Some(&again), &status, "other", "status", false, schema, T3).unwrap_err();
    assert_eq!(
        error.message(),
        "Apply failed with 1 conflict: conflict with \"hpa-controller\" with subresource \"status\": .status.desiredReplicas"
    );
    // An update through the subresource ignores managedFields sent with the request.
    let mut edited = again.clone();
    edited["metadata"]["managedFields"] = json!([]);
    edited["status"]["desiredReplicas"] = json!(5);
    let edited =
        record_subresource_update(Some(&again), &edited, "kubectl-edit", "autoscaling/v2", "status", T3, schema);
    let managers: Vec<Value> = edited["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| json!([e["manager"], e["operation"], e.get("subresource")]))
        .collect();
    assert_eq!(
        managers,
        vec![
            json!(["kubectl", "Apply", null]),
            json!(["hpa-controller", "Apply", "status"]),
            json!(["kubectl-edit", "Update", "status"]),
        ]
    );
}
