use std::sync::Arc;

use proc_macro2::TokenStream;

use super::*;
use crate::emit::scope::Scope;
use crate::ir::{
    Api, EnumVariant, Field, Origin, Presence, RuleText, RuntimeType, StringEnum, Struct, TypeDef, TypeId, TypeKind,
    Wording,
};

const THING: TypeId = TypeId::new(0);
const KIND: TypeId = TypeId::new(1);
const PART: TypeId = TypeId::new(2);

fn field(wire: &str, rust: &str, ty: Ty, required: bool) -> Field {
    Field {
        wire_name: wire.to_owned(),
        rust_name: rust.to_owned(),
        ty: FieldType::plain(ty),
        presence: if required { Presence::Required } else { Presence::Optional },
        boxed: false,
        doc: None,
        nullable: false,
        default: None,
    }
}

fn structure(fields: Vec<Field>) -> Struct {
    Struct {
        fields,
        rules: Vec::new(),
        min_properties: None,
        max_properties: None,
        gvks: Vec::new(),
        unknown_fields: None,
        resource: None,
        object_meta: None,
    }
}

fn type_def(name: &str, kind: TypeKind) -> TypeDef {
    TypeDef {
        origin: Origin::Schema(format!("io.k8s.api.demo.v1.{name}")),
        module: vec!["api".to_owned(), "demo".to_owned(), "v1".to_owned()],
        file: name.to_lowercase(),
        name: name.to_owned(),
        doc: None,
        source: 0,
        wording: Wording::BuiltIn,
        kind,
    }
}

/// `Thing` with a field of every kind the translation reads (and some it does not),
/// a string enum `Kind`, and `Part`, a small struct in lists.
fn api() -> Api {
    let thing = structure(vec![
        field("name", "name", Ty::String, true),
        field("nick", "nick", Ty::String, false),
        field("count", "count", Ty::I32, true),
        field("big", "big", Ty::I64, false),
        field("flag", "flag", Ty::Bool, false),
        field("type", "type_", Ty::Named(KIND), true),
        field("mode", "mode", Ty::Named(KIND), false),
        field("qty", "qty", Ty::Runtime(RuntimeType::Quantity), false),
        field("data", "data", Ty::Runtime(RuntimeType::Bytes), false),
        field("when", "when", Ty::Runtime(RuntimeType::Time), false),
        field("tags", "tags", Ty::Vec(Box::new(FieldType::plain(Ty::String))), false),
        field("names", "names", Ty::Vec(Box::new(FieldType::plain(Ty::String))), true),
        field("parts", "parts", Ty::Vec(Box::new(FieldType::plain(Ty::Named(PART)))), false),
        field("part", "part", Ty::Named(PART), false),
        Field { boxed: true, ..field("next", "next", Ty::Named(THING), false) },
        field("ratio", "ratio", Ty::F64, false),
        field("labels", "labels", Ty::Map(Box::new(FieldType::plain(Ty::String))), false),
        field("any", "any", Ty::Value, false),
    ]);
    let kind = StringEnum {
        variants: ["A", "B"]
            .iter()
            .map(|v| EnumVariant { value: (*v).to_owned(), rust_name: (*v).to_owned() })
            .collect(),
        other_variant: "Other".to_owned(),
    };
    let part = structure(vec![field("weight", "weight", Ty::I32, true), field("label", "label", Ty::String, false)]);
    Api {
        types: vec![
            type_def("Thing", TypeKind::Struct(thing)),
            type_def("Kind", TypeKind::Enum(kind)),
            type_def("Part", TypeKind::Struct(part)),
        ],
        ..Api::default()
    }
}

fn rule(text: &str) -> CelRule {
    with_text(RuleText {
        rule: text.to_owned(),
        message: None,
        message_expression: None,
        field_path: None,
        reason: None,
    })
}

fn with_text(text: RuleText) -> CelRule {
    let compiled = kube_apigen_validation::cel::CelRule::new(&text.spec());
    CelRule { transition: compiled.is_transition_rule(), compiled: Arc::new(compiled), text }
}

fn compact(tokens: &TokenStream) -> String {
    tokens.to_string().chars().filter(|c| !c.is_whitespace()).collect()
}

/// The translation of `text` on a `Thing` (or on `self_ty`), whitespace removed, and
/// whether it is fallible.
fn on(self_ty: Ty, text: &str) -> Option<(String, bool)> {
    transpile(&api(), &rule(text), &FieldType::plain(self_ty)).map(|t| (compact(&t.body), t.fallible))
}

#[track_caller]
fn translates(text: &str, expected: &str, fallible: bool) {
    translates_on(Ty::Named(THING), text, expected, fallible);
}

#[track_caller]
fn translates_on(self_ty: Ty, text: &str, expected: &str, fallible: bool) {
    let expected: String = expected.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(on(self_ty, text), Some((expected, fallible)), "{text}");
}

#[track_caller]
fn interpreted(text: &str) {
    assert_eq!(on(Ty::Named(THING), text), None, "{text} should be left to the interpreter");
}

#[test]
fn has_tests_presence_of_optional_fields() {
    translates("has(self.nick)", "value.nick.is_some()", false);
    translates("!has(self.nick)", "value.nick.is_none()", false);
    // Required fields are always in the JSON the interpreter sees.
    translates("has(self.name)", "true", false);
    translates("!has(self.name) || self.count > 0", "i64::from(value.count) > 0", false);
    // The operand is read first: `self.part` fails when absent.
    translates("has(self.part.weight)", "{ let _ = &value.part.as_ref()?.weight; true }", true);
    translates("has(self.part.label)", "value.part.as_ref()?.label.is_some()", true);
}

#[test]
fn fields_are_read_by_type() {
    translates("self.count >= 0", "i64::from(value.count) >= 0", false);
    translates("self.big < 10", "value.big? < 10", true);
    translates("self.flag", "value.flag?", true);
    translates("self.name == 'x'", r#"value.name.as_str() == "x""#, false);
    translates("self.name < self.nick", "value.name.as_str() < value.nick.as_ref()?.as_str()", true);
    translates("self.type != 'A'", r#"value.type_.as_str() != "A""#, false);
    translates("self.mode == 'B'", r#"value.mode.as_ref()?.as_str() == "B""#, true);
    translates("self.part.weight > 1", "i64::from(value.part.as_ref()?.weight) > 1", true);
    translates("self.next.count > 1", "i64::from(value.next.as_deref()?.count) > 1", true);
    translates("self.count > -1", "i64::from(value.count) > -1", false);
    translates("self.big < 10000000000", "value.big? < 10000000000i64", true);
}

#[test]
fn logic_keeps_cel_grouping_and_short_circuits() {
    translates(
        "(has(self.nick) || has(self.big)) && self.count > 1",
        "(value.nick.is_some() || value.big.is_some()) && i64::from(value.count) > 1",
        false,
    );
    translates(
        "has(self.nick) || has(self.big) && has(self.flag)",
        "value.nick.is_some() || value.big.is_some() && value.flag.is_some()",
        false,
    );
    translates("!(self.count > 1)", "i64::from(value.count) <= 1", false);
    translates("!(has(self.nick) && has(self.big))", "!(value.nick.is_some() && value.big.is_some())", false);
    translates("!!has(self.nick)", "value.nick.is_some()", false);
    // Constants decide where CEL's result does not depend on the other side, errors
    // of that side included.
    translates("self.big > 1 || true", "true", false);
    translates("self.big > 1 && true", "value.big? > 1", true);
    translates("false || self.big > 1", "value.big? > 1", true);
}

#[test]
fn conditionals_chain_as_else_if() {
    translates(
        "self.type == 'A' ? has(self.nick) : self.type == 'B' ? has(self.big) : has(self.flag)",
        r#"if value.type_.as_str() == "A" { value.nick.is_some() }
           else if value.type_.as_str() == "B" { value.big.is_some() }
           else { value.flag.is_some() }"#,
        false,
    );
    translates(
        "(self.count > 0 ? self.name : self.nick) == 'a'",
        r#"(if i64::from(value.count) > 0 { value.name.as_str() } else { value.nick.as_ref()?.as_str() }) == "a""#,
        true,
    );
    translates("true ? self.count > 0 : self.big > 0", "i64::from(value.count) > 0", false);
    translates("self.count > 0 ? true : false", "i64::from(value.count) > 0", false);
    translates("self.count > 0 ? false : true", "i64::from(value.count) <= 0", false);
    translates("self.count > 0 ? true : true", "true", false);
    // The condition is still evaluated, for its errors.
    translates("self.big > 0 ? false : false", "{ let _ = value.big? > 0; false }", true);
}

#[test]
fn in_tests_string_list_literals() {
    translates("self.type in ['A', 'B']", r#"matches!(value.type_.as_str(), "A" | "B")"#, false);
    translates("!(self.name in ['a'])", r#"!matches!(value.name.as_str(), "a")"#, false);
    translates("self.nick in ['a']", r#"matches!(value.nick.as_ref()?.as_str(), "a")"#, true);
}

#[test]
fn size_counts_code_points_items_and_base64() {
    translates("size(self.name) > 2", "(value.name.as_str().chars().count() as i64) > 2", false);
    translates("self.name.size() > 2", "(value.name.as_str().chars().count() as i64) > 2", false);
    translates("size(self.names) == 0", "(value.names.len() as i64) == 0", false);
    translates("self.tags.size() == 0", "(value.tags.as_ref()?.len() as i64) == 0", true);
    translates("size(self.data) == 0", "((value.data.as_ref()?.0.len().div_ceil(3) * 4) as i64) == 0", true);
}

#[test]
fn strings_functions() {
    translates(
        "!has(self.qty) || !string(self.qty).startsWith('-')",
        r#"value.qty.is_none() || !value.qty.as_ref()?.0.as_str().starts_with("-")"#,
        true,
    );
    translates("self.name.endsWith(self.type)", "value.name.as_str().ends_with(value.type_.as_str())", false);
}

#[test]
fn comprehensions_loop_with_early_exit() {
    translates(
        "self.parts.exists(p, p.weight > 1)",
        "'l0: { for item1 in value.parts.as_ref()? { if i64::from(item1.weight) > 1 { break 'l0 true; } } false }",
        true,
    );
    translates(
        "self.names.all(n, n != self.name)",
        "'l0: { for item1 in &value.names { if item1.as_str() == value.name.as_str() { break 'l0 false; } } true }",
        false,
    );
    translates(
        "[has(self.nick), has(self.big)].filter(x, x).size() <= 1",
        "({ let mut count0 = 0i64; for item1 in [value.nick.is_some(), value.big.is_some()] { if item1 { count0 += 1; } } count0 }) <= 1",
        false,
    );
    translates(
        "self.names.filter(n, n == 'a').size() == 1",
        r#"({ let mut count0 = 0i64; for item1 in &value.names { if item1.as_str() == "a" { count0 += 1; } } count0 }) == 1"#,
        false,
    );
    // A variable the predicate does not read is not bound; nested loops get their own
    // labels and names.
    translates(
        "self.names.exists(n, has(self.nick))",
        "'l0: { for _ in &value.names { if value.nick.is_some() { break 'l0 true; } } false }",
        false,
    );
    translates(
        "self.names.exists(a, self.names.exists(b, a < b))",
        "'l1: { for item1 in &value.names {
            let found1 = 'l0: { for item2 in &value.names { if item1.as_str() < item2.as_str() { break 'l0 true; } } false };
            if found1 { break 'l1 true; }
        } false }",
        false,
    );
}

#[test]
fn self_of_other_types() {
    translates_on(Ty::String, "self != 'root'", r#"value != "root""#, false);
    translates_on(Ty::String, "size(self) <= 3", "(value.chars().count() as i64) <= 3", false);
    translates_on(Ty::I32, "self >= 0", "i64::from(*value) >= 0", false);
    translates_on(Ty::I64, "self >= 0", "*value >= 0", false);
    translates_on(Ty::Named(KIND), "self == 'A'", r#"value.as_str() == "A""#, false);
    translates_on(
        Ty::Runtime(RuntimeType::Quantity),
        "self.startsWith('1')",
        r#"value.0.as_str().starts_with("1")"#,
        false,
    );
    translates_on(
        Ty::Vec(Box::new(FieldType::plain(Ty::String))),
        "self.all(z, z.startsWith('z'))",
        r#"'l0: { for item1 in value { if !item1.as_str().starts_with("z") { break 'l0 false; } } true }"#,
        false,
    );
}

#[test]
fn everything_else_is_left_to_the_interpreter() {
    for text in [
        "self == oldSelf",
        "!has(oldSelf.nick) || has(self.nick)",
        "self.unknown == 1",
        "has(self.unknown)",
        "self.ratio > 0.5",
        "self.count % 2 == 0",
        "self.count + 1 > 2",
        "-self.count < 1",
        "self.count == 'a'",
        "self.name == 1",
        "self.flag == true",
        "self.count > 1u",
        "'a' in self.labels",
        "has(self.labels.x)",
        "self.labels.x == 'a'",
        "self.any.x == 1",
        "self.when < 'x'",
        "self.tags[0] == 'a'",
        "self.tags.map(t, t).size() > 0",
        "self.tags.exists_one(t, t == 'a')",
        "[1, 2].exists(x, x > 1)",
        "self.name in []",
        "self.name in [self.nick]",
        "self.name.matches('^a')",
        "self.name.contains('a')",
        "int(self.name) > 1",
        "size(self.labels) > 0",
        "self.count",
        "self.name",
        "self.tags.exists(t, t)",
        "self.type in ['A', 1]",
        "has(self.count.x)",
    ] {
        interpreted(text);
    }
}

/// The field path appended to a failed rule's errors renders as the interpreter's.
#[test]
fn node_checks_each_rule_in_one_statement() {
    let api = api();
    let module = api.ty(THING).module.clone();
    let self_ty = FieldType::plain(Ty::Named(THING));
    let emit = |rules: &[CelRule], translate: bool| {
        let mut scope = Scope::new(&api, &module, ["Thing", "Kind", "Part"]);
        compact(&node(&mut scope, rules, &quote!(&path), &self_ty, "object", None, translate))
    };
    // A translated rule: its function, its lazily compiled rule, one statement.
    let code = emit(&[rule("self.count > 0")], true);
    assert!(code.starts_with(r#"letnode=Node::new(value,&path,"object");"#), "{code}");
    assert!(code.contains("fnrule_0(value:&Thing)->bool{i64::from(value.count)>0}"), "{code}");
    assert!(code.contains(r#"staticRULE_0:LazyRule=LazyRule::new(CelRuleSpec::new("self.count>0"));"#), "{code}");
    assert!(code.ends_with("node.translated(&RULE_0,rule_0(value),errors);"), "{code}");
    // Mixed: rules keep their order; untranslated runs are checked together.
    let rules =
        [rule("self.count > 0"), rule("self.count % 2 == 0"), rule("self.count % 3 == 0"), rule("self.count < 9")];
    let code = emit(&rules, true);
    let (first, run, last) =
        (code.find("fnrule_0").unwrap(), code.find("staticRULES_1").unwrap(), code.find("fnrule_3").unwrap());
    assert!(first < run && run < last, "{code}");
    assert!(code.contains("staticRULES_1:[LazyRule;2]="), "{code}");
    assert!(code.contains("node.interpreted(&RULES_1,None,errors);"), "{code}");
    // Without translation, one run of every rule.
    let code = emit(&rules, false);
    assert!(!code.contains("fnrule_"), "{code}");
    assert!(code.contains("staticRULES_0:[LazyRule;4]="), "{code}");
}
