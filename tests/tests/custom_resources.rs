//! Custom resources generated from `tests/fixture-specs/gizmos.crd.yaml`: the models, their
//! structural defaults, validation (keywords, list semantics, CEL with `message` and
//! `messageExpression`), and the identity and HTTP facts the manifest states (scale
//! paths, storage version, deprecation warnings).

use fixture_api::com::example::crd::{v1, v1alpha1, v1beta1};
use kube_apigen::field::ErrorType;
use kube_apigen::{Resource, Scope, Validate};
use serde_json::{Value, json};

fn gizmo(spec: Value) -> Value {
    json!({
        "apiVersion": "crd.example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": spec,
    })
}

fn decode(value: &Value) -> v1::Gizmo {
    serde_json::from_str(&value.to_string()).unwrap_or_else(|e| panic!("decoding {value}: {e}"))
}

/// `validate()`'s errors as `(type, "field: body")`. Every case is checked at run time
/// from the manifest's schema too ([`kube_apigen::structural`], as a registry checks the
/// kinds of definitions installed while it runs), and both must find the same errors
/// (in any order) and the same stored object.
fn errors(value: &Value) -> Vec<(ErrorType, String)> {
    let compiled = decode(value);
    let listed = |errors: &[kube_apigen::field::FieldError]| -> Vec<(ErrorType, String)> {
        errors.iter().map(|e| (e.error_type, e.to_string())).collect()
    };
    let found = listed(&compiled.validate());
    let (object, at_run_time) = kube_apigen::structural::check(v1_schema(), Scope::Namespaced, value, None);
    let sorted = |mut errors: Vec<(ErrorType, String)>| {
        errors.sort_by(|a, b| a.1.cmp(&b.1));
        errors
    };
    assert_eq!(sorted(listed(&at_run_time)), sorted(found.clone()), "run-time errors of {value}");
    // The models encode a `nullable` null as absent; the API server keeps it.
    assert_eq!(
        without_nulls(&object["spec"]),
        serde_json::to_value(&compiled).unwrap()["spec"],
        "run-time object of {value}"
    );
    found
}

fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            fields.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), without_nulls(v))).collect()
        }
        other => other.clone(),
    }
}

/// The `v1` schema of the Gizmo definition.
fn v1_schema() -> &'static Value {
    static SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
        let documents = kube_apigen::http::yaml_documents(include_str!("../fixture-specs/gizmos.crd.yaml"))
            .expect("the manifest reads");
        let gizmos = documents.iter().find(|d| d["spec"]["names"]["kind"] == "Gizmo").expect("the Gizmo definition");
        let versions = gizmos["spec"]["versions"].as_array().expect("versions");
        let v1 = versions.iter().find(|v| v["name"] == "v1").expect("v1");
        v1["schema"]["openAPIV3Schema"].clone()
    });
    &SCHEMA
}

#[test]
fn absent_fields_take_their_defaults_on_decode() {
    let decoded = decode(&gizmo(json!({
        "mode": "Always",
        "ports": [{"name": "http", "port": 80}],
        "backends": {"a": {"host": "a.example"}, "b": {"host": "b.example", "weight": 5}},
    })));
    let encoded = serde_json::to_value(&decoded).unwrap();
    assert_eq!(
        encoded["spec"],
        json!({
            "mode": "Always",
            "replicas": 1,
            "maxReplicas": 10,
            // An object default is decoded in turn: its own fields' defaults apply.
            "retry": {"attempts": 3, "backoff": "1s"},
            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
            "backends": {"a": {"host": "a.example", "weight": 100}, "b": {"host": "b.example", "weight": 5}},
        })
    );
}

/// `null` for a field with a default is dropped and defaulted, unless the schema allows
/// `null` (`nullable`), as the API server prunes before defaulting.
#[test]
fn null_takes_the_default_unless_nullable() {
    let decoded = decode(&gizmo(json!({"mode": "Always", "replicas": null, "retry": {"backoff": null}, "note": null})));
    let spec = serde_json::to_value(&decoded).unwrap()["spec"].clone();
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["retry"], json!({"attempts": 3, "backoff": "1s"}));
    // A nullable field accepts null; the API server stores it, the model (an `Option`,
    // which cannot tell null from absent) drops it.
    assert!(spec.get("note").is_none(), "{spec}");
}

#[test]
fn values_given_are_kept_and_defaults_apply_only_below_present_objects() {
    let decoded = decode(&gizmo(json!({"mode": "Always", "replicas": 0, "retry": {"attempts": 7}})));
    let encoded = serde_json::to_value(&decoded).unwrap();
    assert_eq!(encoded["spec"]["replicas"], 0);
    assert_eq!(encoded["spec"]["retry"], json!({"attempts": 7, "backoff": "1s"}));
    // No status object, so none of its fields are defaulted; no metadata defaults either.
    assert!(encoded.get("status").is_none());
    // A model's `Default` is what decoding `{}` gives, the spec's defaults included.
    assert_eq!(v1::GizmoSpec::default().replicas, Some(1));
    assert_eq!(v1::GizmoSpec::default(), serde_json::from_value::<v1::GizmoSpec>(json!({})).unwrap());
}

#[test]
fn a_valid_gizmo_has_no_errors() {
    let value = gizmo(json!({
        "mode": "Scheduled",
        "schedule": "@daily",
        "size": "50%",
        "tags": ["a", "b"],
        "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 80, "protocol": "UDP"}],
        "options": {"anything": ["goes", 1, null]},
        "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}},
        "note": null,
        "plugin": {"name": "p", "unknownFields": "declared", "level": 3, "nested": {"on": true}},
    }));
    assert_eq!(errors(&value), []);
    let plugin = decode(&value).spec.unwrap().plugin.unwrap();
    assert_eq!(plugin.name.as_deref(), Some("p"));
    assert_eq!(plugin.unknown_fields.as_deref(), Some("declared"));
    assert_eq!(plugin.unknown_fields_2.keys().collect::<Vec<_>>(), ["level", "nested"]);
    // Free-form and embedded objects survive as they are.
    let encoded = serde_json::to_value(decode(&value)).unwrap();
    assert_eq!(encoded["spec"]["template"], value["spec"]["template"]);
    assert_eq!(encoded["spec"]["options"], value["spec"]["options"]);
    assert_eq!(encoded["spec"]["plugin"], value["spec"]["plugin"]);
    assert_eq!(encoded["spec"]["size"], "50%");
}

/// Rules may use Kubernetes' CEL libraries (here the URL one).
#[test]
fn cel_rules_use_the_kubernetes_libraries() {
    assert_eq!(errors(&gizmo(json!({"mode": "Always", "endpoint": "https://example.com/report"}))), []);
    for endpoint in ["ftp://example.com", "not a url"] {
        assert_eq!(
            errors(&gizmo(json!({"mode": "Always", "endpoint": endpoint}))),
            [(
                ErrorType::Invalid,
                "spec.endpoint: Invalid value: \"object\": endpoint must be an http or https URL".to_owned()
            )],
            "{endpoint}"
        );
    }
}

/// Worded as the API server's schema validator words them for custom resources.
#[test]
fn keyword_enum_and_list_rules_report_kubernetes_field_errors() {
    let value = gizmo(json!({
        "mode": "Sometimes",
        "replicas": -1,
        "tags": ["a", "b", "a"],
        "ports": [
            {"name": "http", "port": 80},
            {"name": "http", "port": 70000, "protocol": "TCP"},
            {"name": "dns", "port": 53, "protocol": "UDP"},
        ],
    }));
    assert_eq!(
        errors(&value),
        [
            (ErrorType::NotSupported, r#"spec.mode: Unsupported value: "Sometimes": supported values: "Always", "Scheduled", "True""#.to_owned()),
            (ErrorType::Duplicate, r#"spec.ports[1]: Duplicate value: {"name":"http","protocol":"TCP"}"#.to_owned()),
            (ErrorType::Invalid, "spec.ports[1].port: Invalid value: 70000: spec.ports[1].port in body should be less than or equal to 65535".to_owned()),
            (ErrorType::Invalid, "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0".to_owned()),
            (ErrorType::Duplicate, r#"spec.tags[2]: Duplicate value: "a""#.to_owned()),
        ]
    );
}

/// As the API server reports them: at `fieldPath` when the rule states one, with the type
/// of the schema the rule is written on.
#[test]
fn cel_rules_use_their_message_and_message_expression() {
    let value = gizmo(json!({"mode": "Always", "replicas": 12, "schedule": "@hourly"}));
    assert_eq!(
        errors(&value),
        [
            (
                ErrorType::Invalid,
                "spec.replicas: Invalid value: \"object\": replicas must not exceed maxReplicas".to_owned()
            ),
            (
                ErrorType::Invalid,
                "spec: Invalid value: \"object\": a schedule needs mode Scheduled, not Always".to_owned()
            ),
        ]
    );
}

/// A structural schema's `required` asks for presence: an empty string is a value (Go
/// clients send `key: ""` for unset struct fields), absence is an error.
#[test]
fn required_means_present_in_custom_resources() {
    assert_eq!(errors(&gizmo(json!({"mode": "Always", "ports": [{"name": "", "port": 80}]}))), []);
    assert_eq!(
        errors(&gizmo(json!({"ports": [{"port": 80}]}))),
        [
            (ErrorType::Required, "spec.mode: Required value".to_owned()),
            (ErrorType::Required, "spec.ports[0].name: Required value".to_owned()),
        ]
    );
}

#[test]
fn quoted_enum_values_are_strings() {
    let value = json!({
        "apiVersion": "crd.example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": "default"},
        "spec": {"mode": "True"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "Maybe"}]},
    });
    assert_eq!(
        errors(&value),
        [
            (ErrorType::Duplicate, r#"status.conditions[1]: Duplicate value: {"type":"Ready"}"#.to_owned()),
            (ErrorType::NotSupported, r#"status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown""#.to_owned()),
        ]
    );
    assert_eq!(decode(&value).spec.unwrap().mode, Some(v1::GizmoSpecMode::True));
}

#[test]
fn root_rules_see_the_metadata_of_cluster_scoped_kinds() {
    let knob = |name: &str, setting: i64| -> Vec<String> {
        let value = json!({"apiVersion": "crd.example.com/v1alpha1", "kind": "Knob", "metadata": {"name": name}, "setting": setting});
        let knob: v1alpha1::Knob = serde_json::from_value(value).unwrap();
        knob.validate().iter().map(ToString::to_string).collect()
    };
    assert_eq!(knob("knob-a", 11), Vec::<String>::new());
    assert_eq!(
        knob("dial", 12),
        [
            "setting: Invalid value: 12: setting in body should be less than or equal to 11",
            "<nil>: Invalid value: \"object\": knob names start with knob-",
        ]
    );
}

#[test]
fn identity_and_http_facts_come_from_the_manifest() {
    assert_eq!(
        (v1::Gizmo::INFO.api_version().as_str(), v1::Gizmo::INFO.plural, v1::Gizmo::INFO.list_kind),
        ("crd.example.com/v1", "gizmos", "GizmoList")
    );
    assert_eq!(v1alpha1::Knob::INFO.scope, kube_apigen::Scope::Cluster);

    let gizmos = &v1::GIZMO;
    assert_eq!(
        (gizmos.singular, gizmos.short_names, gizmos.categories),
        ("gizmo", &["gz"][..], &["all", "fixtures"][..])
    );
    assert!(gizmos.storage_version);
    assert_eq!(gizmos.deprecation_warning, None);
    assert_eq!(
        gizmos.scale,
        Some(kube_apigen::resource::ScalePaths {
            spec_replicas: ".spec.replicas",
            status_replicas: ".status.replicas",
            label_selector: Some(".status.selector"),
        })
    );
    let columns: Vec<(&str, &str, i32)> = gizmos.columns.iter().map(|c| (c.name, c.json_path, c.priority)).collect();
    assert_eq!(
        columns,
        [
            ("Replicas", ".spec.replicas", 0),
            ("Mode", ".spec.mode", 0),
            ("Ready", ".status.replicas", 1),
            ("Age", ".metadata.creationTimestamp", 0),
        ]
    );

    let old = &v1beta1::GIZMO;
    assert!(!old.storage_version);
    assert_eq!(old.deprecation_warning, Some("crd.example.com/v1beta1 Gizmo is deprecated"));
    assert_eq!(old.scale, None);
    assert_eq!(v1alpha1::KNOB.deprecation_warning, Some("crd.example.com/v1alpha1 Knob is going away; use a Gizmo"));
}

/// The API server stores a custom resource's strings as sent, `format: date-time` included,
/// and checks `format` as apiextensions does.
#[test]
fn formatted_strings_are_kept_as_sent_and_checked() {
    let sent = json!({"mode": "Always", "address": "10.0.0.1", "startedAt": "2026-12-01T13:05:00.50+01:00"});
    let encoded = serde_json::to_value(decode(&gizmo(sent.clone()))).unwrap();
    assert_eq!(encoded["spec"]["startedAt"], sent["startedAt"]);
    assert_eq!(errors(&gizmo(sent)), []);

    let bad = gizmo(json!({"mode": "Always", "address": "999.1.1.1", "startedAt": "yesterday"}));
    assert_eq!(
        errors(&bad),
        [
            (
                ErrorType::Invalid,
                r#"spec.address: Invalid value: "999.1.1.1": spec.address in body must be of type ipv4: "999.1.1.1""#
                    .to_owned()
            ),
            (
                ErrorType::Invalid,
                r#"spec.startedAt: Invalid value: "yesterday": spec.startedAt in body must be of type date-time: "yesterday""#
                    .to_owned()
            ),
        ]
    );
}

/// `pattern` is Go's RE2: `\d` is an ASCII digit, not any Unicode one.
#[test]
fn patterns_read_digits_as_go_does() {
    assert_eq!(errors(&gizmo(json!({"mode": "Always", "serial": "0123"}))), []);
    assert_eq!(
        errors(&gizmo(json!({"mode": "Always", "serial": "٠١٢٣"}))),
        [(
            ErrorType::Invalid,
            r#"spec.serial: Invalid value: "٠١٢٣": spec.serial in body should match '^\d+$'"#.to_owned()
        )]
    );
}
