//! `x-kubernetes-validations` rules against the errors the Kubernetes API server gives.

use std::sync::LazyLock;

use kube_apigen_core::field::{ErrorList, ErrorType, FieldError, Path};
use kube_apigen_validation::cel::{CelRule, CelRuleSpec, FieldPathSegment, check_rules, parse_field_path};
use serde_json::{Value, json};

fn rule(source: &str) -> CelRule {
    CelRuleSpec::new(source).compile().unwrap_or_else(|err| panic!("{err}"))
}

/// The errors of `rule` on `value` at `spec`.
fn check(rule: &CelRule, value: &Value, old: Option<&Value>) -> ErrorList {
    let spec = Path::ROOT.field("spec");
    let mut errors = ErrorList::new();
    rule.check(&spec, value, old, &mut errors);
    errors
}

fn error(field: &str, error_type: ErrorType, value: Option<&str>, detail: &str) -> FieldError {
    FieldError { field: field.to_owned(), error_type, bad_value: value.map(|v| json!(v)), detail: detail.to_owned() }
}

fn messages(errors: &ErrorList) -> Vec<String> {
    errors.iter().map(ToString::to_string).collect()
}

#[test]
fn true_and_false() {
    let positive = rule("self.replicas > 0");
    assert_eq!(check(&positive, &json!({"replicas": 3}), None), vec![]);
    let errors = check(&positive, &json!({"replicas": 0}), None);
    assert_eq!(errors, vec![error("spec", ErrorType::Invalid, Some("object"), "failed rule: self.replicas > 0")]);
    assert_eq!(messages(&errors), ["spec: Invalid value: \"object\": failed rule: self.replicas > 0"]);
    assert!(!positive.is_transition_rule());
}

#[test]
fn message_and_message_expression() {
    let with_message = CelRuleSpec::new("self.replicas > 0").with_message("  replicas must be positive ");
    let compiled = with_message.compile().unwrap();
    assert_eq!(
        messages(&check(&compiled, &json!({"replicas": -1}), None)),
        ["spec: Invalid value: \"object\": replicas must be positive"]
    );

    let with_expression =
        with_message.with_message_expression("'replicas is ' + string(self.replicas) + ', must be positive'");
    let compiled = with_expression.compile().unwrap();
    assert_eq!(
        messages(&check(&compiled, &json!({"replicas": -1}), None)),
        ["spec: Invalid value: \"object\": replicas is -1, must be positive"]
    );

    // A messageExpression that fails, or gives no string, falls back to the message.
    for fallback in ["self.missing", "42", "'  '", "'two\\nlines'"] {
        let compiled = with_message.with_message_expression(fallback).compile().unwrap();
        assert_eq!(
            messages(&check(&compiled, &json!({"replicas": -1}), None)),
            ["spec: Invalid value: \"object\": replicas must be positive"],
            "{fallback}"
        );
    }
    // ... or to the default message.
    let compiled = CelRuleSpec::new("self.replicas > 0").with_message_expression("1 + 1").compile().unwrap();
    assert_eq!(
        messages(&check(&compiled, &json!({"replicas": -1}), None)),
        ["spec: Invalid value: \"object\": failed rule: self.replicas > 0"]
    );
}

#[test]
fn field_path() {
    let spec = CelRuleSpec::new("self.replicas > 0").with_message("must be positive").with_field_path(".replicas");
    let compiled = spec.compile().unwrap();
    assert_eq!(
        messages(&check(&compiled, &json!({"replicas": 0}), None)),
        ["spec.replicas: Invalid value: \"object\": must be positive"]
    );

    // At the root, the path starts with the field.
    let mut errors = ErrorList::new();
    compiled.check(&Path::ROOT, &json!({"replicas": 0}), None, &mut errors);
    assert_eq!(errors[0].field, "replicas");

    let keyed = CelRuleSpec::new("self.labels.size() < 1")
        .with_field_path(".labels['app.kubernetes.io/name']")
        .compile()
        .unwrap();
    assert_eq!(
        check(&keyed, &json!({"labels": {"app.kubernetes.io/name": "x"}}), None)[0].field,
        "spec.labels[app.kubernetes.io/name]"
    );

    assert_eq!(
        parse_field_path(".a.b['c\\'d']"),
        Ok(vec![
            FieldPathSegment::Field("a".into()),
            FieldPathSegment::Field("b".into()),
            FieldPathSegment::Key("c'd".into()),
        ])
    );
    for bad in ["spec", ".a[0]", ".a['b'", ".", ".a['b']x", ".a['\\q']"] {
        assert!(parse_field_path(bad).is_err(), "{bad}");
        let err = CelRuleSpec::new("true").with_field_path(bad).compile().unwrap_err();
        assert!(err.starts_with("invalid fieldPath for rule \"true\": "), "{err}");
    }
}

#[test]
fn reasons() {
    let base = CelRuleSpec::new("self.replicas > 0").with_message("must be positive");
    let value = json!({"replicas": 0});
    let at = |reason: &str| check(&base.with_reason(reason).compile().unwrap(), &value, None);

    assert_eq!(at("FieldValueInvalid"), vec![error("spec", ErrorType::Invalid, Some("object"), "must be positive")]);
    assert_eq!(at("FieldValueForbidden"), vec![error("spec", ErrorType::Forbidden, None, "must be positive")]);
    assert_eq!(messages(&at("FieldValueForbidden")), ["spec: Forbidden: must be positive"]);
    assert_eq!(messages(&at("FieldValueRequired")), ["spec: Required value: must be positive"]);
    // A duplicate shows the value and no detail, as `field.Duplicate`.
    assert_eq!(at("FieldValueDuplicate"), vec![error("spec", ErrorType::Duplicate, Some("object"), "")]);
    assert_eq!(messages(&at("FieldValueDuplicate")), ["spec: Duplicate value: \"object\""]);

    let err = base.with_reason("FieldValueTooLong").compile().unwrap_err();
    assert_eq!(
        err,
        "invalid reason for rule \"self.replicas > 0\": Unsupported value: \"FieldValueTooLong\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
    );
}

#[test]
fn transition_rules() {
    let immutable = CelRuleSpec::new("self == oldSelf").with_message("Value is immutable");
    let compiled = immutable.compile().unwrap();
    assert!(compiled.is_transition_rule());

    // Skipped on create, when there is no old value (or a null one).
    assert_eq!(check(&compiled, &json!("a"), None), vec![]);
    assert_eq!(check(&compiled, &json!("a"), Some(&Value::Null)), vec![]);
    // Evaluated on update.
    assert_eq!(check(&compiled, &json!("a"), Some(&json!("a"))), vec![]);
    assert_eq!(
        messages(&check(&compiled, &json!("b"), Some(&json!("a")))),
        ["spec: Invalid value: \"string\": Value is immutable"]
    );

    let growing = rule("self.replicas >= oldSelf.replicas");
    assert_eq!(check(&growing, &json!({"replicas": 1}), Some(&json!({"replicas": 2}))).len(), 1);
    // Non-transition rules still run on update.
    assert_eq!(check(&rule("self.replicas > 5"), &json!({"replicas": 1}), Some(&json!({}))).len(), 1);
}

#[test]
fn compile_errors() {
    let err = CelRuleSpec::new("self.replicas >").compile().unwrap_err();
    assert!(err.starts_with("compilation failed for rule \"self.replicas >\": "), "{err}");
    assert!(err.contains("Syntax error"), "{err}");

    let err = CelRuleSpec::new("slef.replicas > 0").compile().unwrap_err();
    assert_eq!(err, "compilation failed for rule \"slef.replicas > 0\": undeclared reference to 'slef'");
    let err = CelRuleSpec::new("self.name.frobnicate()").compile().unwrap_err();
    assert_eq!(err, "compilation failed for rule \"self.name.frobnicate()\": undeclared reference to 'frobnicate'");
    let err = CelRuleSpec::new("true").with_message_expression("'a' +").compile().unwrap_err();
    assert!(err.starts_with("messageExpression compilation failed for rule \"true\": "), "{err}");

    // Compiled leniently, as generated statics do, the rule reports itself on every
    // check instead of panicking.
    let broken = CelRule::new(&CelRuleSpec::new("self.replicas >"));
    assert!(broken.compile_error().is_some());
    let errors = check(&broken, &json!({"replicas": 1}), None);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "spec");
    assert_eq!(errors[0].error_type, ErrorType::Internal);
    assert!(
        errors[0].detail.starts_with("rule compile error: compilation failed for rule \"self.replicas >\": "),
        "{}",
        errors[0].detail
    );

    // Variables bound by comprehensions, type names and namespaced functions resolve.
    for ok in [
        "self.items.all(i, i.name != '')",
        "self.items.map(i, i.size).exists(s, s > 1)",
        "self.items.filter(i, has(i.name)).size() >= 0",
        "type(self.name) == string",
        "optional.of(1).hasValue()",
        "sets.contains([1, 2], [1])",
        "self.?name.orValue('') == ''",
        "{'a': self.name}.size() == 1",
        "int(self.count) + 1 > 0 && double(self.count) > 0.0 && string(self.count) != ''",
        "duration('1h') > duration('1m') && timestamp('2024-01-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')",
        "",
    ] {
        assert!(CelRuleSpec::new(ok).compile().is_ok(), "{ok}");
    }
    let err = CelRuleSpec::new("self.items.all(i, j > 0)").compile().unwrap_err();
    assert!(err.ends_with("undeclared reference to 'j'"), "{err}");
}

#[test]
fn optional_fields_and_has() {
    let hpa = CelRuleSpec::new("!has(self.minReplicas) || self.maxReplicas >= self.minReplicas")
        .with_message("maxReplicas must be greater than or equal to minReplicas")
        .compile()
        .unwrap();
    assert_eq!(check(&hpa, &json!({"maxReplicas": 5}), None), vec![]);
    assert_eq!(check(&hpa, &json!({"minReplicas": 2, "maxReplicas": 5}), None), vec![]);
    assert_eq!(
        messages(&check(&hpa, &json!({"minReplicas": 6, "maxReplicas": 5}), None)),
        ["spec: Invalid value: \"object\": maxReplicas must be greater than or equal to minReplicas"]
    );

    assert_eq!(check(&rule("!has(self.x)"), &json!({}), None), vec![]);
    assert_eq!(check(&rule("has(self.x)"), &json!({"x": null}), None), vec![]);
}

#[test]
fn evaluation_errors() {
    let missing = rule("self.minReplicas > 0");
    assert_eq!(
        check(&missing, &json!({}), None),
        vec![error(
            "spec",
            ErrorType::Invalid,
            Some("object"),
            "no such key: minReplicas evaluating rule: self.minReplicas > 0"
        )]
    );
    // The rule is named by its message when it has one; fieldPath and reason don't apply.
    let named = CelRuleSpec::new("self.minReplicas > 0")
        .with_message("min must be positive")
        .with_field_path(".minReplicas")
        .with_reason("FieldValueForbidden")
        .compile()
        .unwrap();
    assert_eq!(
        messages(&check(&named, &json!({}), None)),
        ["spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: min must be positive"]
    );

    assert_eq!(
        messages(&check(&rule("self.name > 1"), &json!({"name": "a"}), None)),
        [
            "spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.name > 1"
        ]
    );
    assert_eq!(
        check(&rule("self.count / 0 == 1"), &json!({"count": 1}), None)[0].detail,
        "division by zero evaluating rule: self.count / 0 == 1"
    );
    assert_eq!(
        check(&rule("self.items[3] == 1"), &json!({"items": [1]}), None)[0].detail,
        "index out of range: 3 evaluating rule: self.items[3] == 1"
    );
    assert_eq!(
        check(&rule("self.count"), &json!({"count": 1}), None)[0].detail,
        "rule evaluated to int, not a bool evaluating rule: self.count"
    );
}

#[test]
fn kubernetes_value_semantics() {
    // Integers are int64, fractions double; `self` may be any JSON value.
    for holds in [
        (json!({"replicas": 3}), "self.replicas + 1 == 4"),
        (json!({"replicas": 3}), "self.replicas - 5 == -2"),
        (json!({"replicas": 3}), "self.replicas < 3.5"),
        (json!({"ratio": 0.5}), "self.ratio * 2.0 == 1.0"),
        (json!({"ratio": 1.0}), "type(self.ratio) == double"),
        (json!(7), "self % 2 == 1"),
        (json!("web-1"), "self.startsWith('web') && self.endsWith('1') && self.contains('-')"),
        (json!("web"), "self.matches('^[a-z]+$') && self.size() == 3 && size(self) == 3"),
        (json!("Web"), "self.lowerAscii() == 'web' && self.upperAscii() == 'WEB'"),
        (json!("a,b"), "self.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'"),
        (json!("  x "), "self.trim() == 'x' && self.indexOf('x') == 2 && self.substring(2, 3) == 'x'"),
        (json!([1, 2, 3]), "self.size() == 3 && self.all(x, x > 0) && self.exists_one(x, x == 2)"),
        (json!({"m": {"k-1": "v"}}), "self.m['k-1'] == 'v' && 'k-1' in self.m"),
        (json!({"a": true, "n": null}), "self.a && self.n == null"),
        (json!({"l": [{"name": "a"}, {"name": "b"}]}), "self.l.map(e, e.name) == ['a', 'b']"),
    ] {
        assert_eq!(check(&rule(holds.1), &holds.0, None), vec![], "{}", holds.1);
    }
}

#[test]
fn kubernetes_libraries() {
    for holds in [
        "[1, 2, 3].isSorted() && ![2, 1].isSorted() && ['a', 'b'].isSorted()",
        "[1, 2, 3].sum() == 6 && [0.5, 0.25].sum() == 0.75 && [].sum() == 0",
        "[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && ['b', 'a'].min() == 'a'",
        "[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1",
        "'abc 123 def 456'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''",
        "'a1b2c3'.findAll('[0-9]') == ['1', '2', '3'] && 'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']",
        "sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1], [2])",
        "sets.equivalent([1, 2, 2], [2, 1]) && !sets.equivalent([1], [1, 2])",
        "sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [2])",
        "'abc'.charAt(1) == 'b' && 'a-b'.replace('-', '_') == 'a_b'",
    ] {
        let compiled = rule(holds);
        assert_eq!(compiled.evaluate(&json!({}), None), Ok(true), "{holds}");
    }
    assert_eq!(
        check(&rule("self.items.min() > 0"), &json!({"items": []}), None)[0].detail,
        "min: min called on empty list evaluating rule: self.items.min() > 0"
    );
}

#[test]
fn typed_scalars_and_many_rules() {
    let replicas = Path::ROOT.field("spec");
    let replicas = replicas.field("replicas");
    let mut errors = ErrorList::new();
    rule("self >= 0").check_typed(&replicas, "integer", &json!(-1), None, &mut errors);
    assert_eq!(messages(&errors), ["spec.replicas: Invalid value: \"integer\": failed rule: self >= 0"]);

    // All rules of a node are checked, each error reported, in order.
    let rules = [
        rule("self.a > 0"),
        rule("self.b > 0"),
        CelRule::new(&CelRuleSpec::new("self.c >")),
        rule("self.c == oldSelf.c"),
        rule("self.d > 0"),
    ];
    let mut errors = ErrorList::new();
    check_rules(&rules, &Path::ROOT, &json!({"a": 0, "b": 1, "c": 2}), None, &mut errors);
    let summary: Vec<(ErrorType, &str)> =
        errors.iter().map(|e| (e.error_type, e.detail.split(':').next().unwrap())).collect();
    assert_eq!(
        summary,
        [
            (ErrorType::Invalid, "failed rule"),
            (ErrorType::Internal, "rule compile error"),
            (ErrorType::Invalid, "no such key"),
        ]
    );

    // Null values are not validated.
    let mut errors = ErrorList::new();
    check_rules(&rules, &Path::ROOT, &Value::Null, None, &mut errors);
    assert_eq!(errors, vec![]);
}

/// How generated code holds its rules: `const` specs, compiled once on first use.
const SPECS: [CelRuleSpec<'static>; 2] = [
    CelRuleSpec::new("self.minReplicas <= self.maxReplicas").with_message("min above max"),
    CelRuleSpec {
        rule: "self.maxReplicas <= 100",
        message: None,
        message_expression: Some("'maxReplicas ' + string(self.maxReplicas) + ' is above 100'"),
        field_path: Some(".maxReplicas"),
        reason: Some("FieldValueForbidden"),
    },
];
static RULES: LazyLock<Vec<CelRule>> = LazyLock::new(|| SPECS.iter().map(CelRule::new).collect());

#[test]
fn static_rules_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CelRule>();

    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let mut errors = ErrorList::new();
                let value = json!({"minReplicas": 200, "maxReplicas": 150 + i});
                check_rules(&RULES, &Path::ROOT.field("spec"), &value, None, &mut errors);
                messages(&errors)
            })
        })
        .collect();
    for (i, handle) in handles.into_iter().enumerate() {
        assert_eq!(
            handle.join().unwrap(),
            [
                "spec: Invalid value: \"object\": min above max".to_owned(),
                format!("spec.maxReplicas: Forbidden: maxReplicas {} is above 100", 150 + i),
            ]
        );
    }
}
