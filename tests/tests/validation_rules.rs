//! Generated validation of the fixture API (`tests/fixture-specs/rules.yaml`): for every rule
//! kind, a valid object gives no error and each invalid one gives exactly the Kubernetes
//! field errors (`path: Type phrase: value: detail`), all of them, in the order they are
//! found; and the errors become the 422 `Invalid` Status the API server sends.
//!
//! Objects are built as JSON, edited, and decoded from text as a request body would be.

mod common;

use common::{put, remove};
use fixture_api::api::fixture::v1::Widget;
use kube_apigen::field::{ErrorList, ErrorType, FieldError};
use kube_apigen::{Resource, Status, Validate};
use serde_json::{Value, json};

use ErrorType::{Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, TooMany};

// ---- Helpers ----

/// A widget that breaks no rule, with every optional field set.
fn base() -> Value {
    json!({
        "apiVersion": "fixture.example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w",
            "namespace": "default",
            "labels": {"app": "demo", "app.kubernetes.io/part-of": "shop"},
            "annotations": {"example.com/note": "anything goes here"}
        },
        "spec": {
            "aliases": ["x", "y"],
            "budget": 5_000_000_000_i64,
            "class": "standard",
            "code": "ABC-123",
            "items": [
                {"name": "a", "count": 1, "limits": {"cpu": "250m", "memory": "64Mi"}, "serial": "s-1"},
                {"name": "b", "count": 0},
                {"name": "c", "limits": {"cpu": "2"}}
            ],
            "matchLabels": {"app": "demo"},
            "mode": "Fast",
            "owner": "ops",
            "payload": "aGVsbG8=",
            "port": "http",
            "ports": [
                {"port": 80, "protocol": "TCP"},
                {"port": 80, "protocol": "UDP"},
                {"port": 443, "protocol": "TCP", "name": "https"}
            ],
            "priority": 2,
            "quotas": {"cpu": 4, "memory": 0},
            "ratio": 0.5,
            "replicas": 3,
            "schedule": "2026-01-02T03:04:05Z",
            "selectors": ["a", "b"],
            "surge": 2,
            "template": {"image": "nginx:1.27", "pullPolicy": "IfNotPresent"},
            "threshold": 50.5,
            "tier": "Silver",
            "weight": 2_999_999_999_i64,
            "zones": ["za", "zb"]
        },
        "status": {"observedGeneration": 1, "phase": "Ready"}
    })
}

/// Decodes a widget from JSON text, as a request body.
fn decode(doc: &Value) -> Widget {
    serde_json::from_str(&doc.to_string()).unwrap_or_else(|e| panic!("decoding {doc}: {e}"))
}

/// The base widget with `edits` (pointer, value) applied.
fn widget(edits: &[(&str, Value)]) -> Widget {
    let mut doc = base();
    for (pointer, value) in edits {
        put(&mut doc, pointer, value.clone());
    }
    decode(&doc)
}

/// The errors as `(type, "field: body")`, what the assertions compare.
fn rendered(errors: &ErrorList) -> Vec<(ErrorType, String)> {
    errors.iter().map(|e| (e.error_type, e.to_string())).collect()
}

#[track_caller]
fn assert_errors(context: &str, errors: &ErrorList, expected: &[(ErrorType, &str)]) {
    let expected: Vec<(ErrorType, String)> = expected.iter().map(|(t, line)| (*t, (*line).to_owned())).collect();
    assert_eq!(rendered(errors), expected, "{context}");
}

/// Each case: edits to the base widget and the exact errors of `validate()`.
type Case<'a> = (&'a [(&'a str, Value)], &'a [(ErrorType, &'a str)]);

#[track_caller]
fn check_cases(cases: &[Case<'_>]) {
    for (edits, expected) in cases {
        let context = format!("edits {edits:?}");
        assert_errors(&context, &widget(edits).validate(), expected);
    }
}

// ---- A valid object ----

#[test]
fn valid_widget_has_no_errors() {
    let w = decode(&base());
    assert_errors("validate", &w.validate(), &[]);
    assert_errors("validate_update to itself", &w.validate_update(&w), &[]);
    // Optional fields may all be absent.
    let minimal = decode(&json!({
        "metadata": {"name": "m"},
        "spec": {
            "owner": "me",
            "tier": "Bronze",
            "selectors": ["s"],
            "matchLabels": {"k": "v"},
            "payload": "AA==",
            "template": {"image": "busybox"},
            "replicas": 1
        }
    }));
    assert_errors("minimal", &minimal.validate(), &[]);
}

#[test]
fn values_on_the_boundaries_are_valid() {
    let cases: &[Case<'_>] = &[
        // Inclusive int32 bounds.
        (&[("/spec/replicas", json!(1)), ("/spec/surge", Value::Null)], &[]),
        (&[("/spec/replicas", json!(10))], &[]),
        // Exclusive int32 bounds, just inside (surge < replicas for the CEL rule).
        (&[("/spec/surge", json!(1))], &[]),
        (&[("/spec/surge", json!(4)), ("/spec/replicas", json!(10))], &[]),
        // Inclusive int64 bounds beyond the int32 range.
        (&[("/spec/budget", json!(-10_000_000_000_i64))], &[]),
        (&[("/spec/budget", json!(10_000_000_000_i64))], &[]),
        // Exclusive int64 bounds, just inside.
        (&[("/spec/weight", json!(-2_999_999_999_i64))], &[]),
        (&[("/spec/weight", json!(2_999_999_999_i64))], &[]),
        // Inclusive and exclusive number bounds.
        (&[("/spec/ratio", json!(0.0))], &[]),
        (&[("/spec/ratio", json!(1))], &[]),
        (&[("/spec/threshold", json!(0.001))], &[]),
        (&[("/spec/threshold", json!(99.999))], &[]),
        // Lengths count characters: 2 and 8 two-byte characters are within 2..=8.
        (&[("/spec/owner", json!("éé"))], &[]),
        (&[("/spec/owner", json!("éééééééé"))], &[]),
        (&[("/spec/zones", json!(["zéééé", "zb", "zc", "zd"]))], &[]),
        // Item and property counts at their limits.
        (&[("/spec/items", json!([{"name": "only"}]))], &[]),
        (&[("/spec/quotas", json!({"a": 1, "b": 2, "c": 3, "d": 4}))], &[]),
        (&[("/spec/matchLabels", json!({"a": "1", "b": "2"}))], &[]),
        // Every enum value.
        (
            &[
                ("/spec/tier", json!("Gold")),
                ("/spec/priority", json!(1)),
                ("/spec/mode", json!("Slow")),
                ("/spec/replicas", json!(2)),
                ("/spec/surge", json!(1)),
            ],
            &[],
        ),
        (&[("/spec/tier", json!("Bronze")), ("/spec/priority", json!(3))], &[]),
        // A pattern is searched, anchors included.
        (&[("/spec/code", json!("XYZ-0"))], &[]),
        // A generated name needs no name.
        (&[("/metadata/name", json!("")), ("/metadata/generateName", json!("web-"))], &[]),
    ];
    check_cases(cases);
}

// ---- required ----

// The rule (codegen/src/emit/validation.rs): a required string, byte string or string enum
// that is empty (absent, `null` or `""`) is `Required value` and its other rules are skipped.
// Lists, maps, numbers and objects have no "missing" state once decoded: they are checked by
// their other rules (`minItems`/`minProperties` when a spec wants them non-empty).

#[test]
fn an_empty_spec_reports_every_required_field() {
    let expected = [
        // Required map: empty, so its minProperties applies.
        (Invalid, "spec.matchLabels: Invalid value: 0: must have at least 1 property"),
        (Required, "spec.owner: Required value"),
        (Required, "spec.payload: Required value"),
        // A required integer: absent decodes as 0, which its bounds reject.
        (Invalid, "spec.replicas: Invalid value: 0: must be greater than or equal to 1"),
        // Required list `selectors`: empty is a valid value, so nothing.
        // A required object: its own required fields are reported.
        (Required, "spec.template.image: Required value"),
        (Required, "spec.tier: Required value"),
    ];
    let w = decode(&json!({"metadata": {"name": "w"}, "spec": {}}));
    assert_errors("empty spec", &w.validate(), &expected);
    // A missing spec is the same as an empty one.
    let w = decode(&json!({"metadata": {"name": "w"}}));
    assert_errors("no spec", &w.validate(), &expected);
}

#[test]
fn null_and_empty_values_are_missing_and_skip_the_other_rules() {
    // Empty string (minLength 2 and the CEL rule are not checked), empty byte string, empty
    // enum: missing. Empty list and map: values, checked by their other rules. Then `null`
    // for each, which decodes the same.
    let empty = widget(&[
        ("/spec/owner", json!("")),
        ("/spec/selectors", json!([])),
        ("/spec/matchLabels", json!({})),
        ("/spec/payload", json!("")),
        ("/spec/tier", json!("")),
        ("/spec/template", json!({"image": ""})),
    ]);
    let expected = [
        (Invalid, "spec.matchLabels: Invalid value: 0: must have at least 1 property"),
        (Required, "spec.owner: Required value"),
        (Required, "spec.payload: Required value"),
        (Required, "spec.template.image: Required value"),
        (Required, "spec.tier: Required value"),
    ];
    assert_errors("empty values", &empty.validate(), &expected);
    let null = widget(&[
        ("/spec/owner", Value::Null),
        ("/spec/selectors", Value::Null),
        ("/spec/matchLabels", Value::Null),
        ("/spec/payload", Value::Null),
        ("/spec/tier", Value::Null),
        ("/spec/template", json!({"image": null})),
    ]);
    assert_errors("null values", &null.validate(), &expected);
}

#[test]
fn required_object_integer_and_list_have_no_empty_state() {
    let mut doc = base();
    remove(&mut doc, "/spec/template");
    remove(&mut doc, "/spec/replicas");
    remove(&mut doc, "/spec/surge"); // else the CEL rule surge < replicas fails too
    remove(&mut doc, "/spec/selectors");
    assert_errors(
        "template, replicas and selectors absent",
        &decode(&doc).validate(),
        &[
            (Invalid, "spec.replicas: Invalid value: 0: must be greater than or equal to 1"),
            (Required, "spec.template.image: Required value"),
        ],
    );
    // An empty object is checked like any other: only its own rules apply.
    check_cases(&[(&[("/spec/template", json!({}))], &[(Required, "spec.template.image: Required value")])]);
}

// ---- enum ----

#[test]
fn enums_reject_unknown_values() {
    check_cases(&[
        (
            &[("/spec/tier", json!("Foo"))],
            &[(NotSupported, r#"spec.tier: Unsupported value: "Foo": supported values: "Bronze", "Silver", "Gold""#)],
        ),
        // Enum values are case-sensitive.
        (
            &[("/spec/mode", json!("fast"))],
            &[(NotSupported, r#"spec.mode: Unsupported value: "fast": supported values: "Fast", "Slow""#)],
        ),
        (
            &[("/spec/template/pullPolicy", json!("Sometimes"))],
            &[(
                NotSupported,
                r#"spec.template.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never""#,
            )],
        ),
        // An integer enum: the value unquoted, the supported values quoted as Kubernetes does.
        (
            &[("/spec/priority", json!(5))],
            &[(NotSupported, r#"spec.priority: Unsupported value: 5: supported values: "1", "2", "3""#)],
        ),
        (
            &[("/spec/priority", json!(0))],
            &[(NotSupported, r#"spec.priority: Unsupported value: 0: supported values: "1", "2", "3""#)],
        ),
        // An enum inside a list item.
        (
            &[("/spec/ports/1/protocol", json!("SCTP"))],
            &[(NotSupported, r#"spec.ports[1].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP""#)],
        ),
    ]);
}

// ---- minimum / maximum ----

#[test]
fn int32_bounds_inclusive_and_exclusive() {
    check_cases(&[
        (
            &[("/spec/replicas", json!(0)), ("/spec/surge", Value::Null)],
            &[(Invalid, "spec.replicas: Invalid value: 0: must be greater than or equal to 1")],
        ),
        (
            &[("/spec/replicas", json!(11))],
            &[(Invalid, "spec.replicas: Invalid value: 11: must be less than or equal to 10")],
        ),
        (
            &[("/spec/replicas", json!(-2_147_483_648_i64)), ("/spec/surge", Value::Null)],
            &[(Invalid, "spec.replicas: Invalid value: -2147483648: must be greater than or equal to 1")],
        ),
        (&[("/spec/surge", json!(0))], &[(Invalid, "spec.surge: Invalid value: 0: must be greater than 0")]),
        (
            &[("/spec/surge", json!(5)), ("/spec/replicas", json!(10))],
            &[(Invalid, "spec.surge: Invalid value: 5: must be less than 5")],
        ),
    ]);
}

#[test]
fn int64_bounds_inclusive_and_exclusive() {
    check_cases(&[
        (
            &[("/spec/budget", json!(-10_000_001_000_i64))],
            &[(Invalid, "spec.budget: Invalid value: -10000001000: must be greater than or equal to -10000000000")],
        ),
        (
            &[("/spec/budget", json!(10_000_001_000_i64))],
            &[(Invalid, "spec.budget: Invalid value: 10000001000: must be less than or equal to 10000000000")],
        ),
        (
            &[("/spec/weight", json!(-3_000_000_000_i64))],
            &[(Invalid, "spec.weight: Invalid value: -3000000000: must be greater than -3000000000")],
        ),
        (
            &[("/spec/weight", json!(3_000_000_000_i64))],
            &[(Invalid, "spec.weight: Invalid value: 3000000000: must be less than 3000000000")],
        ),
        (
            &[("/spec/weight", json!(i64::MAX))],
            &[(Invalid, "spec.weight: Invalid value: 9223372036854775807: must be less than 3000000000")],
        ),
        (
            &[("/spec/quotas/cpu", json!(-1))],
            &[(Invalid, "spec.quotas[cpu]: Invalid value: -1: must be greater than or equal to 0")],
        ),
    ]);
}

#[test]
fn number_bounds_inclusive_and_exclusive() {
    check_cases(&[
        (
            &[("/spec/ratio", json!(-0.25))],
            &[(Invalid, "spec.ratio: Invalid value: -0.25: must be greater than or equal to 0")],
        ),
        (
            &[("/spec/ratio", json!(1.5))],
            &[(Invalid, "spec.ratio: Invalid value: 1.5: must be less than or equal to 1")],
        ),
        // An integer literal in a number field.
        (&[("/spec/ratio", json!(2))], &[(Invalid, "spec.ratio: Invalid value: 2: must be less than or equal to 1")]),
        (&[("/spec/threshold", json!(0))], &[(Invalid, "spec.threshold: Invalid value: 0: must be greater than 0")]),
        (
            &[("/spec/threshold", json!(100.0))],
            &[(Invalid, "spec.threshold: Invalid value: 100: must be less than 100")],
        ),
        // Go's %v switches to exponent form from 1e+21 on.
        (
            &[("/spec/threshold", json!(1e21))],
            &[(Invalid, "spec.threshold: Invalid value: 1e+21: must be less than 100")],
        ),
    ]);
}

// ---- minLength / maxLength ----

#[test]
fn lengths_count_characters_not_bytes() {
    check_cases(&[
        (
            &[("/spec/owner", json!("a"))],
            &[(Invalid, r#"spec.owner: Invalid value: "a": must be at least 2 characters long"#)],
        ),
        // One character of two bytes is still too short.
        (
            &[("/spec/owner", json!("é"))],
            &[(Invalid, r#"spec.owner: Invalid value: "é": must be at least 2 characters long"#)],
        ),
        // Nine characters (18 bytes) are too long; the value is not shown for TooLong.
        (
            &[("/spec/owner", json!("ééééééééé"))],
            &[(TooLong, "spec.owner: Too long: may not be more than 8 characters")],
        ),
        // A four-byte character counts once.
        (
            &[("/spec/owner", json!("🦀🦀🦀🦀🦀🦀🦀🦀🦀"))],
            &[(TooLong, "spec.owner: Too long: may not be more than 8 characters")],
        ),
        // maxLength on list items, at the item's index.
        (
            &[("/spec/zones", json!(["za", "zabcde", "zb"]))],
            &[(TooLong, "spec.zones[1]: Too long: may not be more than 5 characters")],
        ),
    ]);
}

// ---- pattern ----

#[test]
fn patterns() {
    check_cases(&[
        (
            &[("/spec/code", json!("abc-1"))],
            &[(Invalid, r#"spec.code: Invalid value: "abc-1": must match the regular expression '^[A-Z]{3}-[0-9]+$'"#)],
        ),
        (
            &[("/spec/code", json!("ABC-1 "))],
            &[(
                Invalid,
                r#"spec.code: Invalid value: "ABC-1 ": must match the regular expression '^[A-Z]{3}-[0-9]+$'"#,
            )],
        ),
    ]);
}

// ---- minItems / maxItems ----

#[test]
fn item_counts() {
    check_cases(&[
        (&[("/spec/items", json!([]))], &[(Invalid, "spec.items: Invalid value: 0: must have at least 1 item")]),
        (
            &[("/spec/items", json!([{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]))],
            &[(TooMany, "spec.items: Too many: 4: must have at most 3 items")],
        ),
        (&[("/spec/zones", json!(["za"]))], &[(Invalid, "spec.zones: Invalid value: 1: must have at least 2 items")]),
        (
            &[("/spec/zones", json!(["za", "zb", "zc", "zd", "ze"]))],
            &[(TooMany, "spec.zones: Too many: 5: must have at most 4 items")],
        ),
    ]);
}

// ---- uniqueItems and list types ----

#[test]
fn duplicates_are_reported_at_each_later_index() {
    check_cases(&[
        // uniqueItems without a list type.
        (
            &[("/spec/aliases", json!(["x", "y", "x", "x"]))],
            &[
                (Duplicate, r#"spec.aliases[2]: Duplicate value: "x""#),
                (Duplicate, r#"spec.aliases[3]: Duplicate value: "x""#),
            ],
        ),
        // x-kubernetes-list-type: set.
        (
            &[("/spec/selectors", json!(["a", "b", "b", "a"]))],
            &[
                (Duplicate, r#"spec.selectors[2]: Duplicate value: "b""#),
                (Duplicate, r#"spec.selectors[3]: Duplicate value: "a""#),
            ],
        ),
        // x-kubernetes-list-type: map with one key: only the key is compared and shown.
        (
            &[("/spec/items", json!([{"name": "a", "count": 1}, {"name": "b"}, {"name": "a", "count": 2}]))],
            &[(Duplicate, r#"spec.items[2]: Duplicate value: {"name":"a"}"#)],
        ),
        // Two keys: equal when both are; the value shows both.
        (
            &[(
                "/spec/ports",
                json!([
                    {"port": 80, "protocol": "TCP", "name": "web"},
                    {"port": 80, "protocol": "UDP"},
                    {"port": 80, "protocol": "TCP", "name": "other"}
                ]),
            )],
            &[(Duplicate, r#"spec.ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}"#)],
        ),
    ]);
}

// ---- minProperties / maxProperties ----

#[test]
fn property_counts() {
    check_cases(&[
        (
            &[("/spec/quotas", json!({"cpu": 1}))],
            &[(Invalid, "spec.quotas: Invalid value: 1: must have at least 2 properties")],
        ),
        (
            &[("/spec/quotas", json!({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}))],
            &[(TooMany, "spec.quotas: Too many: 5: must have at most 4 properties")],
        ),
        (
            &[("/spec/matchLabels", json!({"a": "1", "b": "2", "c": "3"}))],
            &[(TooMany, "spec.matchLabels: Too many: 3: must have at most 2 properties")],
        ),
    ]);
}

// ---- nested paths ----

#[test]
fn nested_objects_lists_and_maps_have_exact_paths() {
    check_cases(&[(
        &[
            ("/spec/items/2/limits", json!({"cpu": "lots", "memory": "12345678901"})),
            ("/spec/items/1/count", json!(-1)),
            ("/spec/items/0/name", json!("")),
            ("/spec/ports/0/port", json!(0)),
            ("/spec/ports/2/port", json!(65536)),
            ("/spec/quotas", json!({"cpu": -5, "memory": 1, "nvidia.com/gpu": -1})),
            ("/status/observedGeneration", json!(-1)),
        ],
        &[
            (Required, "spec.items[0].name: Required value"),
            (Invalid, "spec.items[1].count: Invalid value: -1: must be greater than or equal to 0"),
            (
                Invalid,
                r#"spec.items[2].limits.cpu: Invalid value: "lots": must match the regular expression '^[0-9]+m?$'"#,
            ),
            (TooLong, "spec.items[2].limits.memory: Too long: may not be more than 10 characters"),
            (Invalid, "spec.ports[0].port: Invalid value: 0: must be greater than or equal to 1"),
            (Invalid, "spec.ports[2].port: Invalid value: 65536: must be less than or equal to 65535"),
            (Invalid, "spec.quotas[cpu]: Invalid value: -5: must be greater than or equal to 0"),
            (Invalid, "spec.quotas[nvidia.com/gpu]: Invalid value: -1: must be greater than or equal to 0"),
            (Invalid, "status.observedGeneration: Invalid value: -1: must be greater than or equal to 0"),
        ],
    )]);
}

// ---- CEL rules (x-kubernetes-validations) ----

#[test]
fn cel_rules_on_objects_and_fields() {
    check_cases(&[
        // On a string field, with a message: the bad value is the schema type.
        (
            &[("/spec/owner", json!("root"))],
            &[(Invalid, r#"spec.owner: Invalid value: "string": owner may not be root"#)],
        ),
        // On a list field, without a message: the rule is quoted.
        (
            &[("/spec/zones", json!(["za", "b"]))],
            &[(Invalid, r#"spec.zones: Invalid value: "array": failed rule: self.all(z, z.startsWith('z'))"#)],
        ),
        // On the spec object, reported at its fieldPath, still showing the node's type.
        (
            &[("/spec/surge", json!(3))],
            &[(Invalid, r#"spec.surge: Invalid value: "object": surge must be below replicas"#)],
        ),
        // messageExpression, and reason FieldValueRequired (no value shown).
        (
            &[("/spec/tier", json!("Gold")), ("/spec/code", Value::Null)],
            &[(Required, "spec.code: Required value: tier Gold needs a code")],
        ),
        // reason FieldValueForbidden.
        (&[("/spec/mode", json!("Slow"))], &[(Forbidden, "spec.mode: Forbidden: Slow mode allows at most 2 replicas")]),
        // reason FieldValueDuplicate: the type as the value, no detail.
        (&[("/spec/aliases", json!(["x", "ops"]))], &[(Duplicate, r#"spec.aliases: Duplicate value: "object""#)]),
        // On an integer field and on a map field: their schema types.
        (
            &[("/spec/budget", json!(5_000_000_500_i64))],
            &[(Invalid, r#"spec.budget: Invalid value: "integer": budget must be a multiple of 1000"#)],
        ),
        (
            &[("/spec/quotas/cpu", json!(101))],
            &[(Invalid, r#"spec.quotas: Invalid value: "object": each quota is at most 100"#)],
        ),
        // A fieldPath naming a map key is rendered with brackets.
        (
            &[("/spec/matchLabels", json!({"app.kubernetes.io/name": ""}))],
            &[(
                Invalid,
                r#"spec.matchLabels[app.kubernetes.io/name]: Invalid value: "object": the name label may not be empty"#,
            )],
        ),
        // On a list-map item's nested object.
        (
            &[("/spec/items/1/limits", json!({"cpu": "500m", "memory": ""}))],
            &[(
                Invalid,
                r#"spec.items[1].limits: Invalid value: "object": a millicore cpu limit needs a memory limit"#,
            )],
        ),
    ]);
}

#[test]
fn cel_evaluation_errors() {
    // Reading an absent field is an evaluation error, reported with the rule's message.
    check_cases(&[
        (
            &[("/spec/items/1/limits", json!({"cpu": "500m"}))],
            &[(
                Invalid,
                r#"spec.items[1].limits: Invalid value: "object": no such key: memory evaluating rule: a millicore cpu limit needs a memory limit"#,
            )],
        ),
        (
            &[("/spec/items/1/limits", json!({"memory": ""}))],
            &[(
                Invalid,
                r#"spec.items[1].limits: Invalid value: "object": no such key: cpu evaluating rule: a millicore cpu limit needs a memory limit"#,
            )],
        ),
        // As in CEL, `||` absorbs an error when the other side is true.
        (&[("/spec/items/1/limits", json!({"memory": "1Gi"}))], &[]),
    ]);
}

#[test]
fn cel_rules_and_keywords_report_together() {
    // A field breaking both its keyword and its CEL rule gets both errors, keywords first.
    check_cases(&[(
        &[("/spec/zones", json!(["b"]))],
        &[
            (Invalid, "spec.zones: Invalid value: 1: must have at least 2 items"),
            (Invalid, r#"spec.zones: Invalid value: "array": failed rule: self.all(z, z.startsWith('z'))"#),
        ],
    )]);
}

#[test]
fn transition_rules_run_only_on_update() {
    let old = decode(&base());
    let changed = widget(&[("/spec/class", json!("premium"))]);
    assert_errors("create ignores oldSelf rules", &changed.validate(), &[]);
    assert_errors(
        "update changing an immutable field",
        &changed.validate_update(&old),
        &[(Invalid, r#"spec.class: Invalid value: "string": class is immutable"#)],
    );
    assert_errors("update keeping it", &old.validate_update(&old.clone()), &[]);

    // Kubernetes evaluates a transition rule only when the old value exists too.
    let mut without = base();
    remove(&mut without, "/spec/class");
    let without = decode(&without);
    assert_errors("setting it for the first time", &changed.validate_update(&without), &[]);
    assert_errors("unsetting it", &without.validate_update(&old), &[]);

    // A transition rule on the root object, reported at its fieldPath.
    let mut no_code = base();
    remove(&mut no_code, "/spec/code");
    let no_code = decode(&no_code);
    assert_errors("root rule on create", &no_code.validate(), &[]);
    assert_errors(
        "root rule on update",
        &no_code.validate_update(&old),
        &[(Invalid, r#"spec.code: Invalid value: "object": code cannot be removed once set"#)],
    );
    assert_errors("adding the code is fine", &old.validate_update(&no_code), &[]);

    // Both at once, with a non-transition error: all collected.
    let mut both = base();
    remove(&mut both, "/spec/code");
    put(&mut both, "/spec/class", json!("premium"));
    put(&mut both, "/spec/replicas", json!(11));
    assert_errors(
        "update with three errors",
        &decode(&both).validate_update(&old),
        &[
            (Invalid, r#"spec.class: Invalid value: "string": class is immutable"#),
            (Invalid, "spec.replicas: Invalid value: 11: must be less than or equal to 10"),
            (Invalid, r#"spec.code: Invalid value: "object": code cannot be removed once set"#),
        ],
    );
}

#[test]
fn transition_rules_inside_list_map_items_correlate_by_key() {
    let old = decode(&base());
    // Item "a" moves from index 0 to index 1 and changes its serial; Kubernetes pairs the
    // old and new items by their key (name), not by index.
    let new =
        widget(&[("/spec/items", json!([{"name": "b", "count": 0}, {"name": "a", "serial": "s-2"}, {"name": "c"}]))]);
    assert_errors(
        "changed serial of a keyed item",
        &new.validate_update(&old),
        &[(Invalid, r#"spec.items[1].serial: Invalid value: "string": serial is immutable"#)],
    );
}

// ---- object metadata ----

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const KEY_NAME_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

#[test]
fn object_meta_conventions() {
    let bad_name = format!(r#"metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_MSG}"#);
    let bad_namespace = format!(r#"metadata.namespace: Invalid value: "Prod": {LABEL_MSG}"#);
    let bad_key = format!(r#"metadata.labels: Invalid value: "bad key": {KEY_NAME_MSG}"#);
    let bad_value = format!(r#"metadata.labels: Invalid value: "-x": {LABEL_VALUE_MSG}"#);
    let bad_annotation = format!(
        r#"metadata.annotations: Invalid value: "a/b/c": a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"#,
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    );
    check_cases(&[
        (&[("/metadata/name", json!("Bad_Name"))], &[(Invalid, &bad_name)]),
        (
            &[("/metadata/name", Value::Null)],
            &[(Required, "metadata.name: Required value: name or generateName is required")],
        ),
        (&[("/metadata/namespace", json!("Prod"))], &[(Invalid, &bad_namespace)]),
        (
            &[("/metadata/labels", json!({"bad key": "-x", "ok": "fine"}))],
            &[(Invalid, &bad_key), (Invalid, &bad_value)],
        ),
        // Annotation keys are checked case-insensitively; values are free-form.
        (&[("/metadata/annotations", json!({"Example.COM/Key": " any value "}))], &[]),
        (&[("/metadata/annotations", json!({"a/b/c": "v"}))], &[(Invalid, &bad_annotation)]),
    ]);
    // No metadata at all: the name is missing.
    let mut doc = base();
    remove(&mut doc, "/metadata");
    assert_errors(
        "no metadata",
        &decode(&doc).validate(),
        &[(Required, "metadata.name: Required value: name or generateName is required")],
    );
}

// ---- all errors, not the first ----

#[test]
fn every_error_is_collected_in_order() {
    let mut doc = base();
    put(&mut doc, "/metadata/name", json!("Bad_Name"));
    put(&mut doc, "/spec/owner", json!("é"));
    put(&mut doc, "/spec/tier", json!("Platinum"));
    put(&mut doc, "/spec/selectors", json!(["a", "a"]));
    put(&mut doc, "/spec/items/2/limits/cpu", json!("1 core"));
    put(&mut doc, "/spec/quotas/cpu", json!(-1));
    put(&mut doc, "/spec/surge", json!(9));
    put(&mut doc, "/spec/mode", json!("Slow"));
    put(&mut doc, "/status/observedGeneration", json!(-3));
    let bad_name = format!(r#"metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_MSG}"#);
    assert_errors(
        "nine broken rules",
        &decode(&doc).validate(),
        &[
            (Invalid, &bad_name),
            (
                Invalid,
                r#"spec.items[2].limits.cpu: Invalid value: "1 core": must match the regular expression '^[0-9]+m?$'"#,
            ),
            (Invalid, r#"spec.owner: Invalid value: "é": must be at least 2 characters long"#),
            (Invalid, "spec.quotas[cpu]: Invalid value: -1: must be greater than or equal to 0"),
            (Duplicate, r#"spec.selectors[1]: Duplicate value: "a""#),
            (Invalid, "spec.surge: Invalid value: 9: must be less than 5"),
            (NotSupported, r#"spec.tier: Unsupported value: "Platinum": supported values: "Bronze", "Silver", "Gold""#),
            (Invalid, r#"spec.surge: Invalid value: "object": surge must be below replicas"#),
            (Forbidden, "spec.mode: Forbidden: Slow mode allows at most 2 replicas"),
            (Invalid, "status.observedGeneration: Invalid value: -3: must be greater than or equal to 0"),
        ],
    );
}

// ---- formats enforced by decoding ----

fn decode_error(edits: &[(&str, Value)]) -> String {
    let mut doc = base();
    for (pointer, value) in edits {
        put(&mut doc, pointer, value.clone());
    }
    match serde_json::from_str::<Widget>(&doc.to_string()) {
        Ok(w) => panic!("{edits:?} decoded: {w:?}"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{text:?} does not contain {part:?}");
}

#[test]
fn formats_are_enforced_by_decoding() {
    // int32: out of range is a decode error, never a validation error.
    assert_contains(
        &decode_error(&[("/spec/replicas", json!(3_000_000_000_i64))]),
        "invalid value: integer `3000000000`, expected i32",
    );
    assert_contains(
        &decode_error(&[("/spec/ports/0/port", json!(-2_147_483_649_i64))]),
        "invalid value: integer `-2147483649`, expected i32",
    );
    // An integer field takes no fraction.
    assert_contains(
        &decode_error(&[("/spec/priority", json!(1.5))]),
        "invalid type: floating point `1.5`, expected i32",
    );
    // int64 beyond its range.
    assert_contains(
        &decode_error(&[("/spec/budget", json!(u64::MAX))]),
        "invalid value: integer `18446744073709551615`, expected i64",
    );
    // date-time, byte and int-or-string.
    let time = decode_error(&[("/spec/schedule", json!("tomorrow"))]);
    assert_contains(&time, "tomorrow");
    let bytes = decode_error(&[("/spec/payload", json!("not base64!"))]);
    assert_contains(&bytes, "base64");
    let port = decode_error(&[("/spec/port", json!(80.5))]);
    assert_contains(&port, "floating point `80.5`");
    let port = decode_error(&[("/spec/port", json!(true))]);
    assert_contains(&port, "invalid type: boolean `true`");
    // The valid forms of each decode.
    let w = widget(&[
        ("/spec/schedule", json!("2026-11-29T18:57:12Z")),
        ("/spec/payload", json!("AAEC")),
        ("/spec/port", json!(8080)),
        ("/spec/replicas", json!(10)),
    ]);
    assert_eq!(w.spec.payload.0, vec![0, 1, 2]);
    assert_eq!(w.spec.port, Some(kube_apigen::IntOrString::Int(8080)));
    assert_errors("valid formats", &w.validate(), &[]);
}

// ---- to the wire: Status 422 Invalid ----

fn invalid_status(w: &Widget, errors: &[FieldError]) -> Status {
    let name = w.metadata.as_ref().and_then(|m| m.name.as_deref()).unwrap_or_default();
    Status::invalid(Widget::INFO.kind, Widget::INFO.group, name, errors)
}

#[test]
fn errors_become_a_422_invalid_status() {
    let w = widget(&[("/spec/replicas", json!(0)), ("/spec/surge", Value::Null), ("/spec/tier", json!("Foo"))]);
    let errors = w.validate();
    let status = invalid_status(&w, &errors);
    assert_eq!(status.code(), 422);
    assert_eq!(
        status.to_string(),
        r#"Widget.fixture.example.com "w" is invalid: [spec.replicas: Invalid value: 0: must be greater than or equal to 1, spec.tier: Unsupported value: "Foo": supported values: "Bronze", "Silver", "Gold"]"#
    );
    let expected = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.fixture.example.com \"w\" is invalid: [spec.replicas: Invalid value: 0: must be greater than or equal to 1, spec.tier: Unsupported value: \"Foo\": supported values: \"Bronze\", \"Silver\", \"Gold\"]","reason":"Invalid","details":{"name":"w","group":"fixture.example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be greater than or equal to 1","field":"spec.replicas"},{"reason":"FieldValueNotSupported","message":"Unsupported value: \"Foo\": supported values: \"Bronze\", \"Silver\", \"Gold\"","field":"spec.tier"}]},"code":422}"#;
    let json = serde_json::to_string(&status).expect("Status encodes");
    assert_eq!(json, expected);
    // And a client decodes it back to the same Status.
    let decoded: Status = serde_json::from_str(&json).expect("Status decodes");
    assert_eq!(decoded, status);
}

#[test]
fn one_error_is_not_bracketed() {
    let w = widget(&[("/spec/owner", json!("root"))]);
    let status = invalid_status(&w, &w.validate());
    let expected = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.fixture.example.com \"w\" is invalid: spec.owner: Invalid value: \"string\": owner may not be root","reason":"Invalid","details":{"name":"w","group":"fixture.example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"string\": owner may not be root","field":"spec.owner"}]},"code":422}"#;
    assert_eq!(serde_json::to_string(&status).expect("Status encodes"), expected);
}

#[test]
fn causes_of_every_error_type() {
    // Required (with a detail), Forbidden, Duplicate, TooLong (value never shown), TooMany.
    let w = widget(&[
        ("/spec/tier", json!("Gold")),
        ("/spec/code", Value::Null),
        ("/spec/mode", json!("Slow")),
        ("/spec/aliases", json!(["x", "x"])),
        ("/spec/owner", json!("ééééééééé")),
        ("/spec/items", json!([{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}])),
    ]);
    let status = invalid_status(&w, &w.validate());
    let causes = serde_json::to_value(&status.details.as_ref().expect("details").causes).expect("causes encode");
    assert_eq!(
        causes,
        json!([
            {"reason": "FieldValueDuplicate", "message": "Duplicate value: \"x\"", "field": "spec.aliases[1]"},
            {"reason": "FieldValueTooMany", "message": "Too many: 4: must have at most 3 items", "field": "spec.items"},
            {"reason": "FieldValueTooLong", "message": "Too long: may not be more than 8 characters", "field": "spec.owner"},
            {"reason": "FieldValueRequired", "message": "Required value: tier Gold needs a code", "field": "spec.code"},
            {"reason": "FieldValueForbidden", "message": "Forbidden: Slow mode allows at most 2 replicas", "field": "spec.mode"}
        ])
    );
}

#[test]
fn repeated_errors_appear_once_in_the_message_but_each_is_a_cause() {
    let path = kube_apigen::field::Path::ROOT;
    let spec = path.field("spec");
    let owner = spec.field("owner");
    let errors = vec![FieldError::required(&owner, ""), FieldError::required(&owner, "")];
    let status = Status::invalid("Widget", "fixture.example.com", "w", &errors);
    assert_eq!(status.to_string(), r#"Widget.fixture.example.com "w" is invalid: spec.owner: Required value"#);
    assert_eq!(status.details.as_ref().expect("details").causes.len(), 2);
    // Without errors there is nothing after "is invalid".
    let status = Status::invalid("Widget", "fixture.example.com", "w", &[]);
    assert_eq!(status.to_string(), r#"Widget.fixture.example.com "w" is invalid"#);
}
