//! A resource's schemas compared field by field from its root, in both APIs at once.
//!
//! A position is compared for its type first; only when that is the same are its
//! format, enum, nullability, default, validation keywords, CEL rules and list or map
//! semantics compared, then its properties, items or map values. A named schema met
//! again on the way down (a recursive type) is not compared again.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use kube_apigen_core::schema::{ListType, MapType, PatchStrategy};
use serde_json::{Number, Value, json};

use super::rules::{self, Direction, Place, Ratcheting, Rule, Semver, Severity, Verdict};
use super::rust::{FieldRef, Here};
use super::{Api, Change, RustEffect, Subject};
use crate::ir::RuntimeType;
use crate::spec::{AdditionalProperties, Bound, Keywords, Schema, SchemaType, ValidationRule};

/// Compares the schemas of one resource, from its root, adding what differs to `out`.
pub(super) fn compare_resource<'a>(
    old: (&'a Api, &'a Schema, Here<'a>),
    new: (&'a Api, &'a Schema, Here<'a>),
    subject: &Subject,
    custom_resource: bool,
    out: &mut Vec<Change>,
) {
    let mut walk = Walk { old: old.0, new: new.0, subject, custom_resource, out, stack: Vec::new() };
    let (old_root, new_root) = (walk.old.node(old.1, old.2), walk.new.node(new.1, new.2));
    walk.compare("", &old_root, &new_root);
}

struct Walk<'a, 'o> {
    old: &'a Api,
    new: &'a Api,
    subject: &'o Subject,
    /// Whether the resource is a custom resource, which validation ratcheting covers.
    custom_resource: bool,
    out: &'o mut Vec<Change>,
    /// The named schemas on the way down, in each API.
    stack: Vec<(Option<&'a str>, Option<&'a str>)>,
}

/// A schema position: the schema written there, then what its `allOf` wraps and its
/// `$ref` names, outermost first. A fact is read from the outermost layer stating it
/// (`default` and `description` beside a wrapped `$ref`, the rest from the target).
struct Node<'a> {
    layers: Vec<&'a Schema>,
    /// The innermost named schema.
    name: Option<&'a str>,
    /// The runtime's type, for a named schema it implements.
    runtime: Option<RuntimeType>,
    rust: Here<'a>,
}

/// A position's type, as far as compatibility goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Properties: a struct.
    Object,
    /// `additionalProperties`: a map.
    Map,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    IntOrString,
    /// A number or a string such as `100m`.
    Quantity,
    /// Any JSON: free-form objects, preserve-unknown-fields without properties.
    Any,
}

impl Api {
    fn node<'a>(&'a self, schema: &'a Schema, rust: Here<'a>) -> Node<'a> {
        let mut node = Node { layers: vec![schema], name: None, runtime: None, rust };
        let mut named = Vec::new();
        let mut current = schema;
        loop {
            current = match (&current.reference, &current.all_of) {
                (Some(reference), _) => {
                    let name = reference.name.as_str();
                    // A chain of references back to where it started says nothing more.
                    if named.contains(&name) {
                        break;
                    }
                    named.push(name);
                    node.name = Some(name);
                    node.runtime = self.runtime.get(name).copied();
                    &self.spec.schemas[name]
                }
                (None, Some(inner)) => inner,
                (None, None) => break,
            };
            node.layers.push(current);
        }
        node
    }
}

impl<'a> Node<'a> {
    /// A position that says nothing: items of a list without `items`, values of
    /// `additionalProperties: true`.
    fn any(rust: Here<'a>) -> Node<'a> {
        Node { layers: Vec::new(), name: None, runtime: None, rust }
    }

    fn first<T>(&self, fact: impl Fn(&'a Schema) -> Option<T>) -> Option<T> {
        self.layers.iter().find_map(|layer| fact(layer))
    }

    fn any_layer(&self, fact: impl Fn(&Schema) -> bool) -> bool {
        self.layers.iter().any(|layer| fact(layer))
    }

    fn format(&self) -> Option<&'a str> {
        self.first(|s| s.format.as_deref())
    }

    fn ty(&self) -> Option<SchemaType> {
        self.first(|s| s.ty)
    }

    /// The properties and the required ones, from the layer declaring them.
    fn properties(&self) -> (&'a [(String, Schema)], &'a [String]) {
        self.first(|s| s.has_properties().then_some((s.properties.as_slice(), s.required.as_slice())))
            .unwrap_or_default()
    }

    fn items(&self) -> Option<&'a Schema> {
        self.first(|s| s.items.as_deref())
    }

    fn additional_properties(&self) -> Option<&'a AdditionalProperties> {
        self.first(|s| s.additional_properties.as_ref())
    }

    fn enum_values(&self) -> &'a [Value] {
        self.first(|s| (!s.enum_values.is_empty()).then_some(s.enum_values.as_slice())).unwrap_or_default()
    }

    fn default(&self) -> Option<&'a Value> {
        self.first(|s| s.default.as_ref())
    }

    fn nullable(&self) -> bool {
        self.any_layer(|s| s.nullable)
    }

    fn preserve_unknown_fields(&self) -> bool {
        self.any_layer(|s| s.k8s.preserve_unknown_fields)
    }

    /// The CEL rules of every layer: each applies.
    fn rules(&self) -> Vec<&'a ValidationRule> {
        self.layers.iter().flat_map(|s| &s.k8s.validations).collect()
    }

    fn list_type(&self) -> Option<&'a ListType> {
        self.first(|s| s.k8s.list_type.as_ref())
    }

    fn map_type(&self) -> Option<MapType> {
        self.first(|s| s.k8s.map_type)
    }

    fn patch_strategy(&self) -> &'a [PatchStrategy] {
        self.first(|s| (!s.k8s.patch_strategy.is_empty()).then_some(s.k8s.patch_strategy.as_slice()))
            .unwrap_or_default()
    }

    fn patch_merge_key(&self) -> Option<&'a str> {
        self.first(|s| s.k8s.patch_merge_key.as_deref())
    }

    fn shape(&self) -> Shape {
        match self.runtime {
            Some(RuntimeType::Quantity) => return Shape::Quantity,
            Some(RuntimeType::IntOrString) => return Shape::IntOrString,
            _ => {}
        }
        if self.any_layer(|s| s.k8s.int_or_string) || self.format() == Some("int-or-string") {
            return Shape::IntOrString;
        }
        match self.ty() {
            Some(SchemaType::String) => Shape::String,
            Some(SchemaType::Integer) => Shape::Integer,
            Some(SchemaType::Number) => Shape::Number,
            Some(SchemaType::Boolean) => Shape::Boolean,
            Some(SchemaType::Array) => Shape::Array,
            None if self.items().is_some() => Shape::Array,
            None if self.enum_values().iter().all(Value::is_string) && !self.enum_values().is_empty() => Shape::String,
            Some(SchemaType::Object) | None => {
                if !self.properties().0.is_empty() {
                    Shape::Object
                } else if self.additional_properties().is_some() {
                    Shape::Map
                } else {
                    Shape::Any
                }
            }
        }
    }

    /// How a list merges, and so which duplicates it forbids: as its list type says, else
    /// as its patch strategy says (server-side apply reads built-in schemas so), else
    /// atomic.
    fn effective_list_type(&self) -> ListType {
        if let Some(list_type) = self.list_type() {
            return list_type.clone();
        }
        if self.patch_strategy().contains(&PatchStrategy::Merge) {
            return match self.patch_merge_key() {
                Some(key) => ListType::Map(vec![key.to_owned()]),
                None => ListType::Set,
            };
        }
        ListType::Atomic
    }
}

impl Api {
    /// The type of a position in words, as `kubectl explain` names types (`[]Object`,
    /// `map[string]string`, `integer (int32)`).
    fn label(&self, node: &Node) -> String {
        let with_format = |name: &str| match node.format() {
            Some(format) => format!("{name} ({format})"),
            None => name.to_owned(),
        };
        match node.shape() {
            Shape::Object => "Object".to_owned(),
            Shape::Map => format!("map[string]{}", self.label(&self.values(node))),
            Shape::Array => format!("[]{}", self.label(&self.items(node))),
            Shape::String => with_format("string"),
            Shape::Integer => with_format("integer"),
            Shape::Number => with_format("number"),
            Shape::Boolean => "boolean".to_owned(),
            Shape::IntOrString => "IntOrString".to_owned(),
            Shape::Quantity => "Quantity".to_owned(),
            Shape::Any => "any".to_owned(),
        }
    }

    fn items<'a>(&'a self, node: &Node<'a>) -> Node<'a> {
        let rust = node.rust.items();
        match node.items() {
            Some(items) => self.node(items, rust),
            None => Node::any(rust),
        }
    }

    fn values<'a>(&'a self, node: &Node<'a>) -> Node<'a> {
        let rust = node.rust.values();
        match node.additional_properties() {
            Some(AdditionalProperties::Schema(values)) => self.node(values, rust),
            _ => Node::any(rust),
        }
    }
}

/// A length or count limit: its keyword, its value, whether it is a minimum, and its
/// rules when tightened and loosened.
struct Limit {
    keyword: &'static str,
    value: fn(&Keywords) -> Option<u64>,
    minimum: bool,
    rules: (Rule, Rule),
}

const LIMITS: [Limit; 6] = [
    Limit::new("minLength", |k| k.min_length, true, (Rule::MinLengthTightened, Rule::MinLengthLoosened)),
    Limit::new("maxLength", |k| k.max_length, false, (Rule::MaxLengthTightened, Rule::MaxLengthLoosened)),
    Limit::new("minItems", |k| k.min_items, true, (Rule::MinItemsTightened, Rule::MinItemsLoosened)),
    Limit::new("maxItems", |k| k.max_items, false, (Rule::MaxItemsTightened, Rule::MaxItemsLoosened)),
    Limit::new(
        "minProperties",
        |k| k.min_properties,
        true,
        (Rule::MinPropertiesTightened, Rule::MinPropertiesLoosened),
    ),
    Limit::new(
        "maxProperties",
        |k| k.max_properties,
        false,
        (Rule::MaxPropertiesTightened, Rule::MaxPropertiesLoosened),
    ),
];

impl Limit {
    const fn new(
        keyword: &'static str,
        value: fn(&Keywords) -> Option<u64>,
        minimum: bool,
        rules: (Rule, Rule),
    ) -> Limit {
        Limit { keyword, value, minimum, rules }
    }
}

/// `path.name`, or `name` at the root.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") }
}

fn items_path(path: &str) -> String {
    format!("{path}[*]")
}

/// The effect on the generated crate of a change to what `validate()` accepts.
fn validate_effect(direction: Direction) -> RustEffect {
    let what = match direction {
        Direction::Tighten => "validate() rejects values it accepted",
        Direction::Loosen => "validate() accepts values it rejected",
        Direction::Both => "validate() checks differently",
    };
    RustEffect::new(Semver::Patch, what)
}

impl<'a> Walk<'a, '_> {
    fn push(&mut self, change: Change) {
        self.out.push(change);
    }

    fn change(&self, path: &str, rule: Rule, verdict: Verdict, what: impl Into<String>) -> Change {
        Change::new(self.subject, path, rule, verdict, what)
    }

    /// Where a validation change at `path` is; `not_ratcheted` says why ratcheting would
    /// not apply to this kind of check.
    fn place(&self, path: &str, not_ratcheted: Option<&'static str>) -> Place {
        let under =
            |root: &str| path == root || path.starts_with(&format!("{root}.")) || path.starts_with(&format!("{root}["));
        let ratcheting = match (self.custom_resource, not_ratcheted) {
            (false, _) => Ratcheting::BuiltIn,
            (true, _) if under("metadata") => Ratcheting::DoesNotApply(rules::NOT_RATCHETED_METADATA),
            (true, Some(why)) => Ratcheting::DoesNotApply(why),
            (true, None) => Ratcheting::Applies,
        };
        Place { status: under("status"), ratcheting }
    }

    /// A validation change: its severity from where it is and which way it goes.
    fn validation(
        &mut self,
        path: &str,
        rule: Rule,
        direction: Direction,
        what: String,
        values: (Option<Value>, Option<Value>),
    ) {
        self.validation_with(path, rule, direction, None, what, values);
    }

    fn validation_with(
        &mut self,
        path: &str,
        rule: Rule,
        direction: Direction,
        not_ratcheted: Option<&'static str>,
        what: String,
        (old, new): (Option<Value>, Option<Value>),
    ) {
        let verdict = rules::validation(direction, self.place(path, not_ratcheted));
        let change = self.change(path, rule, verdict, what).values(old, new).rust(validate_effect(direction));
        self.push(change);
    }

    fn compare(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_shape, new_shape) = (old.shape(), new.shape());
        if old_shape != new_shape {
            let rule = if old_shape == Shape::IntOrString {
                Rule::IntOrStringRemoved
            } else if old.preserve_unknown_fields() && !new.preserve_unknown_fields() {
                Rule::PreserveUnknownFieldsRemoved
            } else {
                Rule::FieldTypeChanged
            };
            let (old_label, new_label) = (self.old.label(old), self.new.label(new));
            let change = self
                .change(path, rule, Verdict::new(Severity::Breaking), format!("type {old_label} → {new_label}"))
                .values(Some(json!(old_label)), Some(json!(new_label)));
            self.push(change);
            return;
        }
        self.format(path, old, new);
        self.preserve_unknown_fields(path, old, new);
        self.enum_values(path, old, new);
        self.nullable(path, old, new);
        self.default(path, old, new);
        self.keywords(path, old, new);
        self.cel_rules(path, old, new);
        self.merge_semantics(path, old_shape, old, new);
        // The runtime's types are compared as the values they are.
        if old.runtime.is_some() || new.runtime.is_some() {
            return;
        }
        let named_above = |name: Option<&str>, above: Option<&str>| name.is_some() && name == above;
        if self
            .stack
            .iter()
            .any(|(old_above, new_above)| named_above(old.name, *old_above) || named_above(new.name, *new_above))
        {
            return;
        }
        self.stack.push((old.name, new.name));
        match old_shape {
            Shape::Object => self.properties(path, old, new),
            Shape::Array => {
                let (old_items, new_items) = (self.old.items(old), self.new.items(new));
                self.compare(&items_path(path), &old_items, &new_items);
            }
            Shape::Map => {
                let (old_values, new_values) = (self.old.values(old), self.new.values(new));
                self.compare(&items_path(path), &old_values, &new_values);
            }
            _ => {}
        }
        self.stack.pop();
    }

    fn properties(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_properties, old_required) = old.properties();
        let (new_properties, new_required) = new.properties();
        let find = |properties: &'a [(String, Schema)], name: &str| {
            properties.iter().find(|(property, _)| property == name).map(|(_, schema)| schema)
        };
        let names: BTreeSet<&str> =
            old_properties.iter().chain(new_properties).map(|(name, _)| name.as_str()).collect();
        for name in names {
            let child = join(path, name);
            let (old_field, old_here) = old.rust.field(name);
            let (new_field, new_here) = new.rust.field(name);
            let required = |list: &[String]| list.iter().any(|r| r == name);
            match (find(old_properties, name), find(new_properties, name)) {
                (Some(removed), None) => {
                    let label = self.old.label(&self.old.node(removed, old_here));
                    let rust = old_field.map_or_else(RustEffect::default, |f| {
                        RustEffect::new(Semver::Major, format!("field {} removed", f.name()))
                    });
                    let change = self
                        .change(
                            &child,
                            Rule::FieldRemoved,
                            Verdict::new(Severity::Breaking),
                            format!("field removed (was {label})"),
                        )
                        .values(Some(json!(label)), None)
                        .rust(rust);
                    self.push(change);
                }
                (None, Some(added)) => {
                    let node = self.new.node(added, new_here);
                    self.added(&child, &node, required(new_required), new_field);
                }
                (Some(old_schema), Some(new_schema)) => {
                    let start = self.out.len();
                    match (required(old_required), required(new_required)) {
                        (false, true) => self.validation_with(
                            &child,
                            Rule::FieldBecameRequired,
                            Direction::Tighten,
                            Some(rules::NOT_RATCHETED_REQUIRED),
                            "optional → required".to_owned(),
                            (Some(json!("optional")), Some(json!("required"))),
                        ),
                        (true, false) => self.validation(
                            &child,
                            Rule::FieldBecameOptional,
                            Direction::Loosen,
                            "required → optional".to_owned(),
                            (Some(json!("required")), Some(json!("optional"))),
                        ),
                        _ => {}
                    }
                    let (old_node, new_node) =
                        (self.old.node(old_schema, old_here), self.new.node(new_schema, new_here));
                    self.compare(&child, &old_node, &new_node);
                    if let (Some(old_field), Some(new_field)) = (old_field, new_field) {
                        self.rust_field(&child, start, old_field, new_field);
                    }
                }
                (None, None) => unreachable!("a name of either"),
            }
        }
    }

    /// A property only the new API has.
    fn added(&mut self, path: &str, node: &Node<'a>, required: bool, field: Option<FieldRef>) {
        let label = self.new.label(node);
        let (rule, verdict) = match required {
            false => (Rule::FieldAdded, Verdict::new(Severity::Compatible)),
            true if node.default().is_some() => (
                Rule::RequiredFieldAdded,
                Verdict::noted(Severity::Compatible, "it has a default, which requests without it get"),
            ),
            true => (
                Rule::RequiredFieldAdded,
                rules::validation(Direction::Tighten, self.place(path, Some(rules::NOT_RATCHETED_REQUIRED))),
            ),
        };
        let what = if required { format!("required field added ({label})") } else { format!("field added ({label})") };
        let rust = field.map_or_else(RustEffect::default, |f| {
            RustEffect::new(Semver::Major, format!("new field {} (struct literals must name it)", f.name()))
        });
        let change = self.change(path, rule, verdict, what).values(None, Some(json!(label))).rust(rust);
        self.push(change);
    }

    /// The Rust side of a property both APIs have: when its field's name or type differs,
    /// the change that retyped it says so, or a change of its own does.
    fn rust_field(&mut self, path: &str, start: usize, old: FieldRef, new: FieldRef) {
        let (old_type, new_type) = (old.type_name(&self.old.ir), new.type_name(&self.new.ir));
        if old.field.rust_name == new.field.rust_name && old_type == new_type {
            return;
        }
        let effect = if old.field.rust_name == new.field.rust_name {
            format!("{}: {old_type} → {new_type}", old.name())
        } else {
            format!("field {}: {old_type} → {}: {new_type}", old.name(), new.name())
        };
        // The change at the field itself, or at its items or values, that retyped it.
        let at_field =
            |change: &Change| change.path.strip_prefix(path).is_some_and(|rest| rest.split("[*]").all(str::is_empty));
        let retyping = self.out[start..]
            .iter_mut()
            .find(|change| at_field(change) && change.rule.retypes() && change.rust.semver < Semver::Major);
        let effect = match retyping {
            Some(change) => {
                // What `validate()` now does, if the change said so, follows the new type.
                let also = change.rust.change.take().map(|also| format!("; {also}")).unwrap_or_default();
                change.rust = RustEffect::new(Semver::Major, format!("{effect}{also}"));
                return;
            }
            None => RustEffect::new(Semver::Major, effect),
        };
        let change = self
            .change(path, Rule::RustTypeChanged, Verdict::new(Severity::Compatible), "generated Rust type changed")
            .values(Some(json!(old_type)), Some(json!(new_type)))
            .rust(effect);
        self.push(change);
    }

    fn format(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_format, new_format) = (old.format(), new.format());
        if old_format == new_format || old.shape() == Shape::IntOrString {
            return;
        }
        let name = |format: Option<&str>| format.unwrap_or("none").to_owned();
        let what = format!("format {} → {}", name(old_format), name(new_format));
        let change = self
            .change(path, Rule::FormatChanged, Verdict::new(Severity::Breaking), what)
            .values(old_format.map(|f| json!(f)), new_format.map(|f| json!(f)));
        self.push(change);
    }

    fn preserve_unknown_fields(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (rule, verdict, what) = match (old.preserve_unknown_fields(), new.preserve_unknown_fields()) {
            (true, false) => {
                (Rule::PreserveUnknownFieldsRemoved, Verdict::new(Severity::Breaking), "unknown fields pruned")
            }
            (false, true) => (Rule::PreserveUnknownFieldsAdded, Verdict::new(Severity::Review), "unknown fields kept"),
            _ => return,
        };
        let rust = match (old.rust.structure(), new.rust.structure()) {
            (Some((def, old_struct)), Some((_, new_struct))) => {
                match (&old_struct.unknown_fields, &new_struct.unknown_fields) {
                    (Some(field), None) => {
                        RustEffect::new(Semver::Major, format!("field {}::{field} removed", def.name))
                    }
                    (None, Some(field)) => RustEffect::new(Semver::Major, format!("new field {}::{field}", def.name)),
                    _ => RustEffect::default(),
                }
            }
            _ => RustEffect::default(),
        };
        let flag = |on: bool| Some(json!(on));
        let change = self
            .change(path, rule, verdict, format!("x-kubernetes-preserve-unknown-fields: {what}"))
            .values(flag(old.preserve_unknown_fields()), flag(new.preserve_unknown_fields()))
            .rust(rust);
        self.push(change);
    }

    fn enum_values(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_values, new_values) = (old.enum_values(), new.enum_values());
        let list = |values: &[Value]| values.iter().map(text).collect::<Vec<_>>().join(", ");
        match (old_values.is_empty(), new_values.is_empty()) {
            (true, true) => {}
            (true, false) => self.validation(
                path,
                Rule::EnumIntroduced,
                Direction::Tighten,
                format!("enum introduced: {}", list(new_values)),
                (None, Some(Value::Array(new_values.to_vec()))),
            ),
            (false, true) => self.validation(
                path,
                Rule::EnumLifted,
                Direction::Loosen,
                format!("enum lifted (was {})", list(old_values)),
                (Some(Value::Array(old_values.to_vec())), None),
            ),
            (false, false) => {
                for removed in old_values.iter().filter(|v| !new_values.contains(v)) {
                    let rust = variant_effect(&old.rust, removed, false);
                    let verdict = rules::validation(Direction::Tighten, self.place(path, None));
                    let what = format!("enum value {} removed", text(removed));
                    let change =
                        self.change(path, Rule::EnumValueRemoved, verdict, what).values(Some(removed.clone()), None);
                    self.push(change.rust(rust.unwrap_or_else(|| validate_effect(Direction::Tighten))));
                }
                for added in new_values.iter().filter(|v| !old_values.contains(v)) {
                    let rust = variant_effect(&new.rust, added, true);
                    let verdict = rules::validation(Direction::Loosen, self.place(path, None));
                    let what = format!("enum value {} added", text(added));
                    let change =
                        self.change(path, Rule::EnumValueAdded, verdict, what).values(None, Some(added.clone()));
                    self.push(change.rust(rust.unwrap_or_else(|| validate_effect(Direction::Loosen))));
                }
            }
        }
    }

    fn nullable(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_nullable, new_nullable) = (old.nullable(), new.nullable());
        let (rule, direction) = match (old_nullable, new_nullable) {
            (true, false) => (Rule::NullableRemoved, Direction::Tighten),
            (false, true) => (Rule::NullableAdded, Direction::Loosen),
            _ => return,
        };
        let what = format!("nullable {old_nullable} → {new_nullable}");
        self.validation(path, rule, direction, what, (Some(json!(old_nullable)), Some(json!(new_nullable))));
    }

    fn default(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_default, new_default) = (old.default(), new.default());
        let (rule, breaking_severity) = match (old_default, new_default) {
            (None, Some(_)) => (Rule::DefaultAdded, Severity::Review),
            (Some(_), None) => (Rule::DefaultRemoved, Severity::Breaking),
            (Some(a), Some(b)) if a != b => (Rule::DefaultChanged, Severity::Breaking),
            _ => return,
        };
        // A built-in API's `default: {}` or `""` documents Go's zero value, which
        // decoding gives anyway; its schema defaults are documentation, not applied.
        let zero = |value: Option<&Value>| value.is_none_or(is_zero);
        let verdict = if !self.custom_resource && zero(old_default) && zero(new_default) {
            Verdict::noted(Severity::Compatible, "a zero value in a built-in API, which Go's decoding gives anyway")
        } else {
            Verdict::new(breaking_severity)
        };
        let shown = |value: Option<&Value>| value.map_or("none".to_owned(), Value::to_string);
        let what = format!("default {} → {}", shown(old_default), shown(new_default));
        // The generator applies the defaults of custom resources only (structural schemas).
        let rust = if self.custom_resource {
            RustEffect::new(Semver::Patch, "decoding and Default give the new default")
        } else {
            RustEffect::default()
        };
        let change =
            self.change(path, rule, verdict, what).values(old_default.cloned(), new_default.cloned()).rust(rust);
        self.push(change);
    }

    fn keywords(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let bound = |node: &Node<'a>, pick: fn(&'a Schema) -> Option<&'a Bound>| node.first(pick);
        self.bound(
            path,
            "minimum",
            bound(old, |s| s.keywords.minimum.as_ref()),
            bound(new, |s| s.keywords.minimum.as_ref()),
            Ordering::Greater,
            (Rule::MinimumTightened, Rule::MinimumLoosened),
        );
        self.bound(
            path,
            "maximum",
            bound(old, |s| s.keywords.maximum.as_ref()),
            bound(new, |s| s.keywords.maximum.as_ref()),
            Ordering::Less,
            (Rule::MaximumTightened, Rule::MaximumLoosened),
        );
        for limit in &LIMITS {
            let value = |node: &Node<'a>| node.first(|s| (limit.value)(&s.keywords));
            self.count(path, limit, value(old), value(new));
        }
        let pattern = |node: &Node<'a>| node.first(|s| s.keywords.pattern.as_deref());
        let (old_pattern, new_pattern) = (pattern(old), pattern(new));
        let pattern_change = match (old_pattern, new_pattern) {
            (None, Some(_)) => Some((Rule::PatternAdded, Direction::Tighten)),
            (Some(_), None) => Some((Rule::PatternRemoved, Direction::Loosen)),
            (Some(a), Some(b)) if a != b => Some((Rule::PatternChanged, Direction::Both)),
            _ => None,
        };
        if let Some((rule, direction)) = pattern_change {
            let shown = |p: Option<&str>| p.map_or("none".to_owned(), |p| format!("`{p}`"));
            let what = format!("pattern {} → {}", shown(old_pattern), shown(new_pattern));
            self.validation(
                path,
                rule,
                direction,
                what,
                (old_pattern.map(|p| json!(p)), new_pattern.map(|p| json!(p))),
            );
        }
        let unique = |node: &Node| node.any_layer(|s| s.keywords.unique_items);
        let unique_change = match (unique(old), unique(new)) {
            (false, true) => Some((Rule::UniqueItemsAdded, Direction::Tighten)),
            (true, false) => Some((Rule::UniqueItemsRemoved, Direction::Loosen)),
            _ => None,
        };
        if let Some((rule, direction)) = unique_change {
            let what = format!("uniqueItems {} → {}", unique(old), unique(new));
            self.validation(path, rule, direction, what, (Some(json!(unique(old))), Some(json!(unique(new)))));
        }
    }

    /// `minimum` or `maximum`: `stricter` is the way a stricter bound's value moves.
    fn bound(
        &mut self,
        path: &str,
        keyword: &str,
        old: Option<&Bound>,
        new: Option<&Bound>,
        stricter: Ordering,
        (tightened, loosened): (Rule, Rule),
    ) {
        let direction = match (old, new) {
            (None, None) => return,
            (None, Some(_)) => Direction::Tighten,
            (Some(_), None) => Direction::Loosen,
            (Some(a), Some(b)) => match compare_numbers(&b.value, &a.value) {
                Ordering::Equal if a.exclusive == b.exclusive => return,
                Ordering::Equal if b.exclusive => Direction::Tighten,
                Ordering::Equal => Direction::Loosen,
                moved if moved == stricter => Direction::Tighten,
                _ => Direction::Loosen,
            },
        };
        let operator = |exclusive: bool| match (stricter, exclusive) {
            (Ordering::Greater, false) => ">=",
            (Ordering::Greater, true) => ">",
            (_, false) => "<=",
            (_, true) => "<",
        };
        let shown = |b: Option<&Bound>| b.map(|b| format!("{} {}", operator(b.exclusive), b.value));
        let what = format!(
            "{keyword} {} → {}",
            shown(old).unwrap_or("none".to_owned()),
            shown(new).unwrap_or("none".to_owned())
        );
        let rule = if direction == Direction::Tighten { tightened } else { loosened };
        self.validation(path, rule, direction, what, (shown(old).map(Value::String), shown(new).map(Value::String)));
    }

    /// A length or count limit.
    fn count(&mut self, path: &str, limit: &Limit, old: Option<u64>, new: Option<u64>) {
        let Limit { keyword, minimum: lower, rules: (tightened, loosened), .. } = *limit;
        // A minimum of 0 limits nothing.
        let (old, new) = if lower { (old.filter(|n| *n > 0), new.filter(|n| *n > 0)) } else { (old, new) };
        let direction = match (old, new) {
            (None, Some(_)) => Direction::Tighten,
            (Some(_), None) => Direction::Loosen,
            (Some(a), Some(b)) if a != b => {
                if (b > a) == lower {
                    Direction::Tighten
                } else {
                    Direction::Loosen
                }
            }
            _ => return,
        };
        let shown = |n: Option<u64>| n.map_or("none".to_owned(), |n| n.to_string());
        let what = format!("{keyword} {} → {}", shown(old), shown(new));
        let rule = if direction == Direction::Tighten { tightened } else { loosened };
        self.validation(path, rule, direction, what, (old.map(|n| json!(n)), new.map(|n| json!(n))));
    }

    fn cel_rules(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_rules, new_rules) = (old.rules(), new.rules());
        let same_rule = |a: &ValidationRule, b: &ValidationRule| a.text.rule == b.text.rule;
        for old_rule in &old_rules {
            let Some(new_rule) = new_rules.iter().find(|n| same_rule(old_rule, n)) else { continue };
            if old_rule.text != new_rule.text {
                let message = |r: &ValidationRule| json!({"message": r.text.message, "messageExpression": r.text.message_expression, "reason": r.text.reason, "fieldPath": r.text.field_path});
                let what = format!("message, reason or field path of CEL rule `{}` changed", new_rule.text.rule);
                let change = self
                    .change(path, Rule::CelMessageChanged, Verdict::new(Severity::Compatible), what)
                    .values(Some(message(old_rule)), Some(message(new_rule)))
                    .rust(RustEffect::new(Semver::Patch, "validate() reports the rule differently"));
                self.push(change);
            }
        }
        let removed: Vec<_> = old_rules.iter().filter(|o| !new_rules.iter().any(|n| same_rule(o, n))).collect();
        let added: Vec<_> = new_rules.iter().filter(|n| !old_rules.iter().any(|o| same_rule(o, n))).collect();
        // Rules that went and came at the same place among the others are one rule rewritten.
        let not_ratcheted =
            |rule: &ValidationRule| rule.compiled.is_transition_rule().then_some(rules::NOT_RATCHETED_TRANSITION);
        let rule_text = |rule: &ValidationRule| Some(json!(rule.text.rule));
        for index in 0..removed.len().max(added.len()) {
            match (removed.get(index), added.get(index)) {
                (Some(old_rule), Some(new_rule)) => self.validation_with(
                    path,
                    Rule::CelRuleChanged,
                    Direction::Both,
                    not_ratcheted(new_rule),
                    format!("CEL rule `{}` → `{}`", old_rule.text.rule, new_rule.text.rule),
                    (rule_text(old_rule), rule_text(new_rule)),
                ),
                (Some(old_rule), None) => self.validation(
                    path,
                    Rule::CelRuleRemoved,
                    Direction::Loosen,
                    format!("CEL rule removed: `{}`", old_rule.text.rule),
                    (rule_text(old_rule), None),
                ),
                (None, Some(new_rule)) => self.validation_with(
                    path,
                    Rule::CelRuleAdded,
                    Direction::Tighten,
                    not_ratcheted(new_rule),
                    format!("CEL rule added: `{}`", new_rule.text.rule),
                    (None, rule_text(new_rule)),
                ),
                (None, None) => unreachable!("within the longer list"),
            }
        }
    }

    /// List types, map types and strategic-merge-patch strategies.
    fn merge_semantics(&mut self, path: &str, shape: Shape, old: &Node<'a>, new: &Node<'a>) {
        if shape == Shape::Array {
            self.list_type(path, old, new);
        }
        if matches!(shape, Shape::Object | Shape::Map | Shape::Any) {
            let (old_type, new_type) = (old.map_type(), new.map_type());
            if old_type != new_type {
                let name = |t: Option<MapType>| t.map(|t| if t == MapType::Atomic { "atomic" } else { "granular" });
                let effective = |t: Option<MapType>| t.unwrap_or(MapType::Granular);
                let verdict = if effective(old_type) == effective(new_type) {
                    Verdict::noted(Severity::Compatible, "granular is what an unmarked object already is")
                } else {
                    Verdict::new(Severity::Review)
                };
                let what = format!(
                    "x-kubernetes-map-type {} → {}",
                    name(old_type).unwrap_or("none"),
                    name(new_type).unwrap_or("none")
                );
                let change = self
                    .change(path, Rule::MapTypeChanged, verdict, what)
                    .values(name(old_type).map(|n| json!(n)), name(new_type).map(|n| json!(n)));
                self.push(change);
            }
        }
        let strategy =
            |node: &Node| node.patch_strategy().iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
        let (old_strategy, new_strategy) = (strategy(old), strategy(new));
        let keyed = [
            (
                Rule::PatchStrategyChanged,
                "x-kubernetes-patch-strategy",
                Some(old_strategy.as_str()).filter(|s| !s.is_empty()),
                Some(new_strategy.as_str()).filter(|s| !s.is_empty()),
            ),
            (Rule::PatchMergeKeyChanged, "x-kubernetes-patch-merge-key", old.patch_merge_key(), new.patch_merge_key()),
        ];
        let scalar = !matches!(shape, Shape::Object | Shape::Map | Shape::Array | Shape::Any);
        for (rule, extension, old_value, new_value) in keyed {
            if old_value == new_value {
                continue;
            }
            // A strategy where there was none changes what patches did (replace the value):
            // worth a look; one changed or dropped breaks the patches clients send. A
            // scalar is replaced whatever its strategy says.
            let verdict = match old_value {
                _ if scalar => {
                    Verdict::noted(Severity::Compatible, "a scalar, which a patch replaces whatever the strategy")
                }
                None => Verdict::new(Severity::Review),
                Some(_) => Verdict::new(Severity::Breaking),
            };
            let what = format!("{extension} {} → {}", old_value.unwrap_or("none"), new_value.unwrap_or("none"));
            let change =
                self.change(path, rule, verdict, what).values(old_value.map(|v| json!(v)), new_value.map(|v| json!(v)));
            self.push(change);
        }
    }

    fn list_type(&mut self, path: &str, old: &Node<'a>, new: &Node<'a>) {
        let (old_stated, new_stated) = (old.list_type(), new.list_type());
        if old_stated == new_stated {
            return;
        }
        let (old_list, new_list) = (old.effective_list_type(), new.effective_list_type());
        let name = |list: &ListType| match list {
            ListType::Atomic => "atomic".to_owned(),
            ListType::Set => "set".to_owned(),
            ListType::Map(keys) => format!("map keyed by {}", keys.join(", ")),
        };
        let stated = |list: Option<&ListType>| list.map_or("none".to_owned(), name);
        let what = format!("x-kubernetes-list-type {} → {}", stated(old_stated), stated(new_stated));
        let value = |list: Option<&ListType>| {
            list.map(|list| match list {
                ListType::Map(keys) => json!({"map": keys}),
                other => json!(name(other)),
            })
        };
        let values = (value(old_stated), value(new_stated));
        let direction = match (&old_list, &new_list) {
            (a, b) if a == b => {
                let note = format!("no change in effect: the list already merged as {}", name(&old_list));
                let change = self
                    .change(path, Rule::ListTypeChanged, Verdict::noted(Severity::Compatible, note), what)
                    .values(values.0, values.1);
                self.push(change);
                return;
            }
            (ListType::Map(_), ListType::Map(_)) => {
                self.validation_with(
                    path,
                    Rule::ListMapKeysChanged,
                    Direction::Both,
                    Some(rules::NOT_RATCHETED_LIST_TYPE),
                    what,
                    values,
                );
                return;
            }
            (ListType::Atomic, _) => Direction::Tighten,
            (_, ListType::Atomic) => Direction::Loosen,
            _ => Direction::Both,
        };
        self.validation_with(
            path,
            Rule::ListTypeChanged,
            direction,
            Some(rules::NOT_RATCHETED_LIST_TYPE),
            what,
            values,
        );
    }
}

/// The generated enum variant of a string enum value, removed or added.
fn variant_effect(here: &Here, value: &Value, added: bool) -> Option<RustEffect> {
    let (def, string_enum) = here.string_enum()?;
    let variant = string_enum.variants.iter().find(|v| Some(v.value.as_str()) == value.as_str())?;
    let what = if added {
        format!("new variant {}::{}", def.name, variant.rust_name)
    } else {
        format!("variant {}::{} removed", def.name, variant.rust_name)
    };
    Some(RustEffect::new(Semver::Major, what))
}

/// A value in a sentence: strings as they are, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Go's zero value of some type: `{}`, `[]`, `""`, `0`, `false`.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Null => true,
    }
}

fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a.cmp(&b);
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return a.cmp(&b);
    }
    a.as_f64().partial_cmp(&b.as_f64()).unwrap_or(Ordering::Equal)
}
