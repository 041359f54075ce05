//! The API generated code checks CEL rules with: `LazyRule` statics and a `Node` per typed
//! node, against the interpreter's answers (`check_rules_typed` on the node's JSON).

use std::cell::Cell;

use cel::common::ast::Expr;
use kube_apigen_core::field::{ErrorList, ErrorType, FieldError, Path};
use kube_apigen_validation::cel::{CelRuleSpec, LazyRule, Node, check_rules_typed, to_json};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

/// A node's value that counts how often it is serialized (copied to JSON).
struct Counted<'a> {
    value: Value,
    copies: &'a Cell<usize>,
}

impl Serialize for Counted<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.copies.set(self.copies.get() + 1);
        self.value.serialize(serializer)
    }
}

/// What the interpreter gives for `spec` on `value` at `path`.
fn interpreter(spec: &CelRuleSpec<'_>, path: &Path<'_>, value: &Value, old: Option<&Value>) -> ErrorList {
    let mut errors = ErrorList::new();
    check_rules_typed(&[kube_apigen_validation::cel::CelRule::new(spec)], path, "object", value, old, &mut errors);
    errors
}

/// What a translated rule gives for `spec` with the translation's `outcome`.
fn translated(spec: CelRuleSpec<'static>, path: &Path<'_>, value: &Value, outcome: Option<bool>) -> ErrorList {
    let mut errors = ErrorList::new();
    Node::new(value, path, "object").translated(&LazyRule::new(spec), outcome, &mut errors);
    errors
}

const FALSE_RULE: &str = " self.replicas > 5 ";

/// Rules false on `{"replicas": 1}`, with every way of wording their failure.
const FALSE_RULES: [CelRuleSpec<'static>; 14] = [
    CelRuleSpec::new(FALSE_RULE),
    CelRuleSpec::new(FALSE_RULE).with_message(""),
    CelRuleSpec::new(FALSE_RULE).with_message("  replicas must be above 5 "),
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_reason("FieldValueInvalid"),
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_reason("FieldValueForbidden"),
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_reason("FieldValueRequired"),
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_reason("FieldValueDuplicate"),
    CelRuleSpec::new(FALSE_RULE).with_reason(""),
    CelRuleSpec::new(FALSE_RULE).with_field_path(".replicas"),
    CelRuleSpec::new(FALSE_RULE).with_field_path(".labels['app.kubernetes.io/name']").with_reason("FieldValueRequired"),
    CelRuleSpec::new(FALSE_RULE).with_field_path(""),
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_message_expression("'replicas is ' + string(self.replicas)"),
    // A message expression that gives no usable detail falls back to the message.
    CelRuleSpec::new(FALSE_RULE).with_message("m").with_message_expression("self.missing"),
    CelRuleSpec::new(FALSE_RULE).with_message_expression("'x'").with_reason("FieldValueDuplicate"),
];

#[test]
fn a_translated_false_is_the_interpreters_error() {
    let value = json!({"replicas": 1});
    let root = Path::ROOT;
    let spec_path = root.field("spec");
    for path in [root, spec_path] {
        for spec in FALSE_RULES {
            let expected = interpreter(&spec, &path, &value, None);
            assert_eq!(expected.len(), 1, "{spec:?}");
            assert_eq!(translated(spec, &path, &value, Some(false)), expected, "{spec:?} at {path}");
        }
    }
    // A few of them in full, so that agreeing with the interpreter means something.
    let at_spec = |spec| -> Vec<String> {
        translated(spec, &spec_path, &value, Some(false)).iter().map(ToString::to_string).collect()
    };
    let expected: [Vec<String>; 6] = [
        vec!["spec: Invalid value: \"object\": failed rule: self.replicas > 5".to_owned()],
        vec!["spec: Invalid value: \"object\": replicas must be above 5".to_owned()],
        vec!["spec: Forbidden: m".to_owned()],
        vec!["spec: Duplicate value: \"object\"".to_owned()],
        vec!["spec.labels[app.kubernetes.io/name]: Required value: failed rule: self.replicas > 5".to_owned()],
        vec!["spec: Invalid value: \"object\": replicas is 1".to_owned()],
    ];
    for (index, expected) in [0, 2, 4, 6, 9, 11].into_iter().zip(expected) {
        assert_eq!(at_spec(FALSE_RULES[index]), expected);
    }
    let errors = translated(FALSE_RULES[5], &spec_path, &value, Some(false));
    assert_eq!(errors, vec![FieldError::new(&spec_path, ErrorType::Required, None, "m")]);
}

#[test]
fn an_undecided_translation_is_the_interpreters_answer() {
    let path = Path::ROOT.field("spec");
    let specs = [
        CelRuleSpec::new("self.replicas > 5").with_message("m").with_field_path(".replicas"),
        CelRuleSpec::new("self.replicas > 0"),
        CelRuleSpec::new("self.missing > 0").with_message("m"),
        CelRuleSpec::new("self.replicas + 'a' == 'b'"),
        CelRuleSpec::new("self.replicas > 5").with_message_expression("'replicas is ' + string(self.replicas)"),
        CelRuleSpec::new("self.replicas >"),
    ];
    for spec in specs {
        for value in [json!({"replicas": 1}), json!({"replicas": 9}), Value::Null] {
            let expected = interpreter(&spec, &path, &value, None);
            assert_eq!(translated(spec, &path, &value, None), expected, "{spec:?} on {value}");
        }
    }
    // The interpreter's answers differ between these, so agreeing with it means something.
    assert_eq!(translated(specs[1], &path, &json!({"replicas": 1}), None), vec![]);
    assert_eq!(
        translated(specs[2], &path, &json!({"replicas": 1}), None)[0].detail,
        "no such key: missing evaluating rule: m"
    );
    assert_eq!(translated(specs[5], &path, &json!({}), None)[0].error_type, ErrorType::Internal);
}

#[test]
fn a_translated_true_passes() {
    let path = Path::ROOT.field("spec");
    for spec in FALSE_RULES {
        assert_eq!(translated(spec, &path, &json!({"replicas": 1}), Some(true)), vec![]);
    }
    // A translation that cannot fail returns a bool.
    let mut errors = ErrorList::new();
    let value = json!({"replicas": 1});
    let node = Node::new(&value, &path, "object");
    node.translated(&LazyRule::new(FALSE_RULES[0]), true, &mut errors);
    assert_eq!(errors, vec![]);
    node.translated(&LazyRule::new(FALSE_RULES[0]), false, &mut errors);
    assert_eq!(errors.len(), 1);
}

/// A translated false is reported from the spec alone: a rule that would not compile is
/// not compiled (the interpreter reports such a rule as an internal error).
#[test]
fn a_translated_false_does_not_compile_the_rule() {
    let path = Path::ROOT.field("spec");
    let value = json!({});
    let unparsable = CelRuleSpec::new("self.replicas >").with_message("m");
    assert_eq!(translated(unparsable, &path, &value, Some(false)), vec![FieldError::invalid(&path, "object", "m")]);
    assert_eq!(interpreter(&unparsable, &path, &value, None)[0].error_type, ErrorType::Internal);
    // Evaluating a message expression takes the interpreter, which compiles the rule.
    let with_expression = unparsable.with_message_expression("'x'");
    assert_eq!(translated(with_expression, &path, &value, Some(false))[0].error_type, ErrorType::Internal);
    // So does an invalid reason or fieldPath, which the interpreter reports.
    for spec in [unparsable.with_reason("FieldValueTooLong"), unparsable.with_field_path("replicas")] {
        let errors = translated(spec, &path, &value, Some(false));
        assert_eq!(errors, interpreter(&spec, &path, &value, None), "{spec:?}");
        assert_eq!(errors[0].error_type, ErrorType::Internal);
    }
}

#[test]
fn interpreted_runs_are_the_interpreters_answer() {
    let path = Path::ROOT.field("spec");
    let specs = [
        CelRuleSpec::new("self.replicas > 5").with_message("above 5"),
        CelRuleSpec::new("self.replicas >= oldSelf.replicas").with_message("may not shrink"),
        CelRuleSpec::new("self.missing > 0"),
    ];
    let rules = specs.map(LazyRule::new);
    let compiled = specs.map(|spec| spec.compile().expect("compiles"));
    let (value, old) = (json!({"replicas": 1}), json!({"replicas": 2}));
    for old in [None, Some(&old), Some(&Value::Null)] {
        let mut expected = ErrorList::new();
        check_rules_typed(&compiled, &path, "object", &value, old, &mut expected);
        let mut errors = ErrorList::new();
        Node::new(&value, &path, "object").interpreted(&rules, old, &mut errors);
        assert_eq!(errors, expected, "old: {old:?}");
    }
    let mut errors = ErrorList::new();
    Node::new(&value, &path, "object").interpreted(&rules, Some(&old), &mut errors);
    let details: Vec<&str> = errors.iter().map(|e| e.detail.as_str()).collect();
    assert_eq!(details, ["above 5", "may not shrink", "no such key: missing evaluating rule: self.missing > 0"]);
}

#[test]
fn the_json_copy_is_made_only_by_the_interpreter() {
    let path = Path::ROOT.field("spec");
    let copies = Cell::new(0);
    let value = Counted { value: json!({"replicas": 1}), copies: &copies };
    let copies_made = |check: &dyn Fn(&Node<'_, Counted<'_>>, &mut ErrorList)| {
        copies.set(0);
        let mut errors = ErrorList::new();
        check(&Node::new(&value, &path, "object"), &mut errors);
        (copies.get(), errors.len())
    };
    static PLAIN: LazyRule = LazyRule::new(CelRuleSpec::new("self.replicas > 5").with_field_path(".replicas"));
    static WORDED: LazyRule = LazyRule::new(
        CelRuleSpec::new("self.replicas > 5").with_message_expression("'replicas is ' + string(self.replicas)"),
    );
    static RUN: [LazyRule; 2] =
        [LazyRule::new(CelRuleSpec::new("self.replicas > 0")), LazyRule::new(CelRuleSpec::new("self.replicas < 0"))];
    static TRANSITIONS: [LazyRule; 1] = [LazyRule::new(CelRuleSpec::new("self == oldSelf"))];

    // Translated rules that decide make no copy, whether they pass or fail.
    assert_eq!(
        copies_made(&|node, errors| {
            node.translated(&PLAIN, Some(true), errors);
            node.translated(&PLAIN, false, errors);
        }),
        (0, 1)
    );
    // Each statement that runs the interpreter copies the node: an undecided or worded
    // translated rule, a run of interpreted rules.
    assert_eq!(
        copies_made(&|node, errors| {
            node.translated(&PLAIN, None, errors);
            node.translated(&WORDED, Some(false), errors);
            node.interpreted(&RUN, None, errors);
            node.translated(&PLAIN, None, errors);
        }),
        (4, 4)
    );
    // Transition rules on create run no rule, so make no copy.
    assert_eq!(copies_made(&|node, errors| node.interpreted(&TRANSITIONS, None, errors)), (0, 0));
    // On update, the old value is copied too.
    let old = Counted { value: json!({"replicas": 2}), copies: &copies };
    assert_eq!(copies_made(&|node, errors| node.interpreted(&TRANSITIONS, Some(&old), errors)), (2, 1));
    // The old value is not copied for rules that do not read it.
    assert_eq!(copies_made(&|node, errors| node.interpreted(&RUN, Some(&old), errors)), (1, 1));
}

#[test]
fn rules_that_do_not_compile_are_reported_without_running() {
    static BROKEN: [LazyRule; 2] =
        [LazyRule::new(CelRuleSpec::new("self == oldSelf")), LazyRule::new(CelRuleSpec::new("self.x >"))];
    let path = Path::ROOT.field("spec");
    let mut errors = ErrorList::new();
    Node::new(&json!({}), &path, "object").interpreted(&BROKEN, None, &mut errors);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].error_type, ErrorType::Internal);
    assert!(errors[0].detail.starts_with("rule compile error: compilation failed for rule \"self.x >\""), "{errors:?}");
}

#[test]
fn nodes_of_every_shape() {
    static NOT_ROOT: LazyRule = LazyRule::new(CelRuleSpec::new("self != 'root'").with_message("may not be root"));
    static SHORT: [LazyRule; 1] = [LazyRule::new(CelRuleSpec::new("size(self) <= 3"))];
    let path = Path::ROOT.field("user");
    let mut errors = ErrorList::new();
    let name: &str = "root";
    let node = Node::new(name, &path, "string");
    node.translated(&NOT_ROOT, None, &mut errors);
    node.interpreted(&SHORT, Some("x"), &mut errors);
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "user: Invalid value: \"string\": may not be root",
            "user: Invalid value: \"string\": failed rule: size(self) <= 3"
        ]
    );
    let items: &[i32] = &[3, 1];
    let path = Path::ROOT.field("items");
    static SORTED: [LazyRule; 1] = [LazyRule::new(CelRuleSpec::new("self.isSorted()"))];
    Node::new(items, &path, "array").interpreted(&SORTED, None, &mut errors);
    assert_eq!(errors[2].to_string(), "items: Invalid value: \"array\": failed rule: self.isSorted()");
    assert_eq!(to_json(items), json!([3, 1]));
}

#[test]
fn the_compiled_tree_is_exposed() {
    let rule = LazyRule::new(CelRuleSpec::new("has(self.x) && oldSelf.y == 1"));
    let expression = rule.get().expression().expect("compiles");
    let Expr::Call(and) = &expression.expr else { panic!("{expression:?}") };
    assert_eq!(and.func_name, "_&&_");
    // `has` is expanded into a test-only selection.
    assert!(matches!(&and.args[0].expr, Expr::Select(select) if select.test && select.field == "x"));
    assert!(rule.get().is_transition_rule());
    // A string mentioning `oldSelf` is no transition rule: the tree says so.
    assert!(!CelRuleSpec::new("self.name != 'oldSelf'").compile().unwrap().is_transition_rule());
    assert!(CelRuleSpec::new("").compile().unwrap().expression().is_none());
    assert!(LazyRule::new(CelRuleSpec::new("self >")).get().expression().is_none());
    assert_eq!(rule.spec().rule, "has(self.x) && oldSelf.y == 1");
}
