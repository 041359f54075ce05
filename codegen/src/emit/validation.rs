//! The validation emitter: a `support::Validate` impl per struct that checks every rule
//! its schema states, with exact Kubernetes field paths.
//!
//! Generated code shadows three names as it descends: `path` (a stack-built
//! `support::validation::Path`), `value` (a reference to the value at that path) and,
//! where transition rules need it, `old` (the value before an update, if any).
//!
//! Required fields: a required string, byte string or string enum that is empty (absent,
//! `null` or `""` on the wire, which decode the same) is reported as `Required value` and
//! its other rules are skipped, as Kubernetes' own validation treats an empty string as
//! missing. Other types have no "missing" state after decoding: an empty list or map is a
//! valid value (`minItems`/`minProperties` say otherwise when a spec means it), and
//! numbers, booleans, quantities and objects are checked by their other rules.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::paths::named;
use crate::ir::{Api, CelRule, Field, FieldType, ListType, Struct, SupportType, Ty, TypeId, TypeKind};

/// Which types need a call at all, and which need the old value; computed once per crate.
#[derive(Default)]
pub struct Analysis {
    has_checks: Vec<bool>,
    needs_old: Vec<bool>,
}

impl Analysis {
    pub fn new(api: &Api) -> Self {
        let mut analysis =
            Analysis { has_checks: vec![false; api.types.len()], needs_old: vec![false; api.types.len()] };
        // Fixed point over possibly recursive types: flags only ever turn on.
        loop {
            let mut changed = false;
            for (id, ty) in api.types.iter().enumerate() {
                let TypeKind::Struct(s) = &ty.kind else { continue };
                let has = !s.rules.is_empty()
                    || s.min_properties.is_some()
                    || s.max_properties.is_some()
                    || is_object_meta_resource(api, id)
                    || s.fields.iter().any(|f| {
                        f.must_be_present
                            || f.required && emptiness(api, &f.ty.ty).is_some()
                            || analysis.position_has_checks(api, &f.ty)
                    });
                let old = s.rules.iter().any(is_transition)
                    || s.fields.iter().any(|f| analysis.position_needs_old(api, &f.ty));
                if has != analysis.has_checks[id] || old != analysis.needs_old[id] {
                    analysis.has_checks[id] |= has;
                    analysis.needs_old[id] |= old;
                    changed = true;
                }
            }
            if !changed {
                return analysis;
            }
        }
    }

    fn position_has_checks(&self, api: &Api, ft: &FieldType) -> bool {
        !ft.rules.cel.is_empty()
            || !parameter_checks(api, ft).is_empty()
            || match &ft.ty {
                Ty::Named(id) => match &api.types[*id].kind {
                    TypeKind::Struct(_) => self.has_checks[*id],
                    TypeKind::Enum(_) => true,
                    TypeKind::Alias(target) => self.position_has_checks(api, target),
                    TypeKind::Support(support) => *support == SupportType::Quantity,
                },
                Ty::Support(SupportType::Quantity) => true,
                Ty::Vec(item) | Ty::Map(item) => self.position_has_checks(api, item),
                _ => false,
            }
    }

    fn position_needs_old(&self, api: &Api, ft: &FieldType) -> bool {
        ft.rules.cel.iter().any(is_transition)
            || match &ft.ty {
                Ty::Named(id) => match &api.types[*id].kind {
                    TypeKind::Struct(_) => self.needs_old[*id],
                    TypeKind::Alias(target) => self.position_needs_old(api, target),
                    _ => false,
                },
                Ty::Map(value) => self.position_needs_old(api, value),
                // Items of a list-map are paired with their old versions by key.
                Ty::Vec(item) if matches!(ft.rules.list_type, Some(ListType::Map { .. })) => {
                    self.position_needs_old(api, item)
                }
                _ => false,
            }
    }
}

fn is_transition(rule: &CelRule) -> bool {
    rule.rule.contains("oldSelf")
}

/// The `Validate` impl of a struct.
pub fn emit(api: &Api, analysis: &Analysis, id: TypeId) -> TokenStream {
    let ty = &api.types[id];
    let TypeKind::Struct(s) = &ty.kind else { return TokenStream::new() };
    let name = format_ident!("{}", ty.name);
    if !analysis.has_checks[id] {
        return quote! {
            impl support::Validate for #name {
                fn validate_into(&self, _old: Option<&Self>, _path: &support::validation::Path<'_>, _errors: &mut support::validation::ErrorList) {}
            }
        };
    }
    let emitter = Emitter { api, analysis, module: &ty.module };
    let fields = s.fields.iter().map(|field| emitter.field(field));
    let object_rules = (!s.rules.is_empty()).then(|| {
        let rules =
            emitter.cel(&s.rules, &FieldType::plain(Ty::Named(id)), analysis.needs_old[id].then(|| quote!(old)));
        quote!(let (value, path) = (self, *path); #rules)
    });
    let property_counts = property_counts(s);
    let meta = is_object_meta_resource(api, id).then(|| emitter.object_meta(id));
    let old_name = if analysis.needs_old[id] { quote!(old) } else { quote!(_old) };
    quote! {
        impl support::Validate for #name {
            fn validate_into(&self, #old_name: Option<&Self>, path: &support::validation::Path<'_>, errors: &mut support::validation::ErrorList) {
                #meta
                #(#fields)*
                #property_counts
                #object_rules
            }
        }
    }
}

/// The function checking a keyword whose wording differs for custom resources
/// (`support::rules::schema`).
fn worded(structural: bool, check: TokenStream) -> TokenStream {
    if structural { quote!(support::rules::schema::#check) } else { quote!(support::rules::#check) }
}

/// `minProperties`/`maxProperties` of an object with declared properties: the fields
/// present on the wire are counted on its JSON (built only for such objects).
fn property_counts(s: &Struct) -> Option<TokenStream> {
    if s.min_properties.is_none() && s.max_properties.is_none() {
        return None;
    }
    let bound = |check: TokenStream, bound: Option<u64>| {
        bound.map(|n| {
            let n = usize_literal(n);
            quote!(#check(path, count, #n, errors);)
        })
    };
    let min = bound(worded(s.structural, quote!(min_properties)), s.min_properties);
    let max = bound(quote!(support::rules::max_properties), s.max_properties);
    Some(quote! {
        let count = support::cel::to_json(self).as_object().map_or(0, |object| object.len());
        #min
        #max
    })
}

/// The keyword checks of one query parameter, with `value` and `path` in scope.
pub fn parameter_checks(api: &Api, ty: &FieldType) -> TokenStream {
    Emitter { api, analysis: &Analysis::default(), module: &[] }.keywords(ty)
}

/// Resources check their `metadata` against the object-meta conventions.
fn is_object_meta_resource(api: &Api, id: TypeId) -> bool {
    api.resources.iter().any(|r| r.type_id == id) && object_meta_field(api, id).is_some()
}

fn object_meta_field(api: &Api, id: TypeId) -> Option<&Field> {
    let TypeKind::Struct(Struct { fields, .. }) = &api.types[id].kind else { return None };
    fields.iter().find(|f| {
        f.wire_name == "metadata"
            && matches!(f.ty.ty, Ty::Named(meta) if api.types[meta].schema_name == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    })
}

/// The expression telling whether a required value of this type is missing, if the type
/// has an empty state.
fn emptiness(api: &Api, ty: &Ty) -> Option<TokenStream> {
    match ty {
        Ty::String => Some(quote!(value.is_empty())),
        Ty::Support(SupportType::Bytes) => Some(quote!(value.0.is_empty())),
        Ty::Named(id) => match &api.types[*id].kind {
            TypeKind::Enum(_) => Some(quote!(value.as_str().is_empty())),
            TypeKind::Alias(target) => emptiness(api, &target.ty),
            TypeKind::Support(support) => emptiness(api, &Ty::Support(*support)),
            TypeKind::Struct(_) => None,
        },
        _ => None,
    }
}

struct Emitter<'a> {
    api: &'a Api,
    analysis: &'a Analysis,
    module: &'a [String],
}

impl Emitter<'_> {
    fn field(&self, field: &Field) -> TokenStream {
        let ft = &field.ty;
        let required_check = field.required.then(|| emptiness(self.api, &ft.ty)).flatten();
        if !self.analysis.position_has_checks(self.api, ft) && required_check.is_none() && !field.must_be_present {
            return TokenStream::new();
        }
        let wire = &field.wire_name;
        let rust = format_ident!("{}", field.rust_name);
        let needs_old = self.analysis.position_needs_old(self.api, ft);
        let checks = self.value(ft, needs_old);
        let old_binding = needs_old.then(|| match (field.required, field.boxed) {
            (true, false) => quote!(let old = old.map(|old| &old.#rust);),
            (true, true) => quote!(let old = old.map(|old| &*old.#rust);),
            (false, false) => quote!(let old = old.and_then(|old| old.#rust.as_ref());),
            (false, true) => quote!(let old = old.and_then(|old| old.#rust.as_deref());),
        });
        let body = match required_check {
            Some(empty) if checks.is_empty() => quote! {
                if #empty {
                    support::rules::required(&path, errors);
                }
            },
            Some(empty) => quote! {
                if #empty {
                    support::rules::required(&path, errors);
                } else {
                    #checks
                }
            },
            None => checks,
        };
        if field.required {
            quote! {
                {
                    let path = path.field(#wire);
                    let value = &self.#rust;
                    #old_binding
                    #body
                }
            }
        } else if field.must_be_present && body.is_empty() {
            quote! {
                if self.#rust.is_none() {
                    support::rules::required(&path.field(#wire), errors);
                }
            }
        } else if field.must_be_present {
            quote! {
                {
                    let path = path.field(#wire);
                    match &self.#rust {
                        Some(value) => {
                            #old_binding
                            #body
                        }
                        None => support::rules::required(&path, errors),
                    }
                }
            }
        } else {
            quote! {
                if let Some(value) = &self.#rust {
                    let path = path.field(#wire);
                    #old_binding
                    #body
                }
            }
        }
    }

    /// Checks of `value` (a reference) at `path`; `old` is in scope when `with_old`.
    fn value(&self, ft: &FieldType, with_old: bool) -> TokenStream {
        let keywords = self.keywords(ft);
        let old = with_old.then(|| quote!(old));
        let cel = self.cel(&ft.rules.cel, ft, old.clone());
        let nested = match &ft.ty {
            Ty::Named(id) => self.named(*id, old),
            Ty::Support(SupportType::Quantity) => quote!(support::rules::quantity(&path, value, errors);),
            Ty::Vec(item) if self.analysis.position_has_checks(self.api, item) => {
                let item_old = match &ft.rules.list_type {
                    Some(ListType::Map { keys }) if with_old && self.analysis.position_needs_old(self.api, item) => {
                        self.list_map_key_fields(item, keys)
                    }
                    _ => None,
                };
                let old_binding = item_old.as_ref().map(
                    |keys| quote!(let old = old.and_then(|old| old.iter().find(|old| #(old.#keys == value.#keys)&&*));),
                );
                let item_checks = self.value(item, item_old.is_some());
                quote! {
                    for (index, value) in value.iter().enumerate() {
                        let path = path.index(index);
                        #old_binding
                        #item_checks
                    }
                }
            }
            Ty::Map(entry) if self.analysis.position_has_checks(self.api, entry) => {
                let entry_old = with_old && self.analysis.position_needs_old(self.api, entry);
                let old_binding = entry_old.then(|| quote!(let old = old.and_then(|old| old.get(key));));
                let entry_checks = self.value(entry, entry_old);
                quote! {
                    for (key, value) in value {
                        let path = path.key(key);
                        #old_binding
                        #entry_checks
                    }
                }
            }
            _ => TokenStream::new(),
        };
        quote! { #keywords #nested #cel }
    }

    fn named(&self, id: TypeId, old: Option<TokenStream>) -> TokenStream {
        match &self.api.types[id].kind {
            TypeKind::Struct(_) if self.analysis.has_checks[id] => {
                let old = match old {
                    Some(old) if self.analysis.needs_old[id] => old,
                    _ => quote!(None),
                };
                let ty = named(self.api, id, self.module);
                quote!(<#ty as support::Validate>::validate_into(value, #old, &path, errors);)
            }
            TypeKind::Enum(_) => {
                let ty = named(self.api, id, self.module);
                quote! {
                    if !value.is_known() {
                        support::rules::not_supported(&path, value.as_str(), #ty::VALUES, errors);
                    }
                }
            }
            TypeKind::Alias(target) => self.value(target, old.is_some()),
            TypeKind::Support(SupportType::Quantity) => quote!(support::rules::quantity(&path, value, errors);),
            _ => TokenStream::new(),
        }
    }

    /// The OpenAPI keywords at one position.
    fn keywords(&self, ft: &FieldType) -> TokenStream {
        let rules = &ft.rules;
        let mut checks = Vec::new();
        let numeric = match ft.ty {
            Ty::I32 => Some("i32"),
            Ty::I64 => Some("i64"),
            Ty::F64 => Some("f64"),
            _ => None,
        };
        if let Some(kind) = numeric {
            for (bound, exclusive, check) in [
                (rules.minimum, rules.exclusive_minimum, quote!(minimum)),
                (rules.maximum, rules.exclusive_maximum, quote!(maximum)),
            ] {
                let Some(bound) = bound else { continue };
                let (value, bound) = number_pair(kind, bound);
                let check = worded(rules.structural, check);
                checks.push(quote!(#check(&path, #value, #bound, #exclusive, errors);));
            }
            let allowed: Vec<TokenStream> =
                rules.enum_values.iter().filter_map(|v| v.as_f64()).map(|v| number_pair(kind, v).1).collect();
            if !allowed.is_empty() {
                let (value, _) = number_pair(kind, 0.0);
                checks.push(quote!(support::rules::one_of(&path, #value, &[#(#allowed),*], errors);));
            }
        }
        if ft.ty == Ty::String {
            if let Some(min) = rules.min_length {
                let min = usize_literal(min);
                let check = worded(rules.structural, quote!(min_length));
                checks.push(quote!(#check(&path, value, #min, errors);));
            }
            if let Some(max) = rules.max_length {
                let max = usize_literal(max);
                checks.push(quote!(support::rules::max_length(&path, value, #max, errors);));
            }
            if let Some(pattern) = &rules.pattern {
                let check = if rules.structural {
                    quote!(support::rules::schema::pattern(&PATTERN, &path, value, errors);)
                } else {
                    quote!(PATTERN.check(&path, value, errors);)
                };
                checks.push(quote! {
                    static PATTERN: support::rules::Pattern = support::rules::Pattern::new(#pattern);
                    #check
                });
            }
            let allowed: Vec<&str> = rules.enum_values.iter().filter_map(|v| v.as_str()).collect();
            if !allowed.is_empty() {
                checks.push(quote! {
                    if ![#(#allowed),*].contains(&value.as_str()) {
                        support::rules::not_supported(&path, value, &[#(#allowed),*], errors);
                    }
                });
            }
        }
        if let Ty::Vec(item) = &ft.ty {
            if let Some(min) = rules.min_items {
                let min = usize_literal(min);
                let check = worded(rules.structural, quote!(min_items));
                checks.push(quote!(#check(&path, value.len(), #min, errors);));
            }
            if let Some(max) = rules.max_items {
                let max = usize_literal(max);
                checks.push(quote!(support::rules::max_items(&path, value.len(), #max, errors);));
            }
            match &rules.list_type {
                Some(ListType::Map { keys }) => checks.push(self.list_map(item, keys)),
                Some(ListType::Set) => checks.push(quote!(support::rules::unique_items(&path, value, errors);)),
                _ if rules.unique_items => checks.push(quote!(support::rules::unique_items(&path, value, errors);)),
                _ => {}
            }
        }
        if matches!(ft.ty, Ty::Map(_)) {
            if let Some(min) = rules.min_properties {
                let min = usize_literal(min);
                let check = worded(rules.structural, quote!(min_properties));
                checks.push(quote!(#check(&path, value.len(), #min, errors);));
            }
            if let Some(max) = rules.max_properties {
                let max = usize_literal(max);
                checks.push(quote!(support::rules::max_properties(&path, value.len(), #max, errors);));
            }
        }
        quote!(#(#checks)*)
    }

    /// The Rust fields holding a list-map item's keys, when the item is a struct.
    fn list_map_key_fields(&self, item: &FieldType, keys: &[String]) -> Option<Vec<proc_macro2::Ident>> {
        let Ty::Named(id) = &item.ty else { return None };
        let TypeKind::Struct(s) = &self.api.types[*id].kind else { return None };
        Some(
            keys.iter()
                .filter_map(|key| s.fields.iter().find(|f| &f.wire_name == key))
                .map(|f| format_ident!("{}", f.rust_name))
                .collect(),
        )
    }

    /// Uniqueness of a list-map's items by their key fields.
    fn list_map(&self, item: &FieldType, keys: &[String]) -> TokenStream {
        let Some(key_fields) = self.list_map_key_fields(item, keys) else {
            // Keys of free-form items cannot be named statically; compare whole items.
            return quote!(support::rules::unique_items(&path, value, errors););
        };
        let names: Vec<&str> = keys.iter().map(String::as_str).collect();
        quote! {
            support::rules::unique_by(
                &path,
                value,
                &[#(#names),*],
                |a, b| #(a.#key_fields == b.#key_fields)&&*,
                |item| vec![#(support::cel::to_json(&item.#key_fields)),*],
                errors,
            );
        }
    }

    /// CEL rules at a position of type `self_ty`, compiled once per process; those the
    /// fast path translates run as Rust (see `super::cel`).
    fn cel(&self, rules: &[CelRule], self_ty: &FieldType, old: Option<TokenStream>) -> TokenStream {
        if rules.is_empty() {
            return TokenStream::new();
        }
        let schema_type = schema_type(self.api, &self_ty.ty);
        if let Some(fast) =
            super::cel::node(self.api, rules, self_ty, schema_type, self.module, old.as_ref(), compiled_rule)
        {
            return fast;
        }
        let count = Literal::usize_unsuffixed(rules.len());
        let specs = rules.iter().map(compiled_rule);
        let old = match old {
            Some(old) if rules.iter().any(is_transition) => quote!(#old.map(support::cel::to_json).as_ref()),
            _ => quote!(None),
        };
        quote! {
            static RULES: std::sync::LazyLock<[support::cel::CelRule; #count]> =
                std::sync::LazyLock::new(|| [#(#specs),*]);
            support::cel::check_rules_typed(&*RULES, &path, #schema_type, &support::cel::to_json(value), #old, errors);
        }
    }

    fn object_meta(&self, id: TypeId) -> TokenStream {
        let resource = self.api.resources.iter().find(|r| r.type_id == id).expect("resource");
        let scope = if resource.namespaced { quote!(Namespaced) } else { quote!(Cluster) };
        let field = object_meta_field(self.api, id).expect("metadata field");
        let metadata = format_ident!("{}", field.rust_name);
        let view = if field.required { quote!(Some(&self.#metadata)) } else { quote!(self.#metadata.as_ref()) };
        // Read the fields the spec's ObjectMeta has; a smaller one leaves the rest empty.
        let meta_fields = match (&field.ty.ty, &self.api.types) {
            (Ty::Named(meta), types) => match &types[*meta].kind {
                TypeKind::Struct(s) => s.fields.as_slice(),
                _ => &[],
            },
            _ => &[],
        };
        let read = |wire: &str, text: bool| {
            let Some(f) = meta_fields.iter().find(|f| f.wire_name == wire && !f.required) else {
                return if text { quote!("") } else { quote!(None) };
            };
            let name = format_ident!("{}", f.rust_name);
            if text {
                quote!(meta.and_then(|m| m.#name.as_deref()).unwrap_or_default())
            } else {
                quote!(meta.and_then(|m| m.#name.as_ref()))
            }
        };
        let (name, generate_name, namespace) =
            (read("name", true), read("generateName", true), read("namespace", true));
        let (labels, annotations) = (read("labels", false), read("annotations", false));
        let name_rule = match resource.name_rule {
            crate::ir::NameRule::Dns1123Subdomain => quote!(Dns1123Subdomain),
            crate::ir::NameRule::Dns1123Label => quote!(Dns1123Label),
            crate::ir::NameRule::PathSegment => quote!(PathSegment),
        };
        quote! {
            let meta = #view;
            support::meta::validate_object_meta(
                &path.field("metadata"),
                support::meta::ObjectMetaView { name: #name, generate_name: #generate_name, namespace: #namespace, labels: #labels, annotations: #annotations },
                support::Scope::#scope,
                support::meta::NameRule::#name_rule,
                errors,
            );
        }
    }
}

/// `support::cel::CelRule::new(&spec)` for a rule, as generated code compiles it.
fn compiled_rule(rule: &CelRule) -> TokenStream {
    let text = &rule.rule;
    let mut spec = quote!(support::cel::CelRuleSpec::new(#text));
    for (value, method) in [
        (&rule.message, quote!(with_message)),
        (&rule.message_expression, quote!(with_message_expression)),
        (&rule.field_path, quote!(with_field_path)),
        (&rule.reason, quote!(with_reason)),
    ] {
        if let Some(value) = value {
            spec = quote!(#spec.#method(#value));
        }
    }
    quote!(support::cel::CelRule::new(&#spec))
}

/// The schema `type` a CEL error shows as the bad value.
fn schema_type(api: &Api, ty: &Ty) -> &'static str {
    match ty {
        Ty::Bool => "boolean",
        Ty::I32 | Ty::I64 => "integer",
        Ty::F64 => "number",
        Ty::String
        | Ty::Support(SupportType::Bytes | SupportType::Time | SupportType::MicroTime | SupportType::Quantity) => {
            "string"
        }
        Ty::Support(SupportType::IntOrString) => "",
        Ty::Vec(_) => "array",
        Ty::Named(id) => match &api.types[*id].kind {
            TypeKind::Enum(_) => "string",
            TypeKind::Alias(target) => schema_type(api, &target.ty),
            TypeKind::Support(support) => schema_type(api, &Ty::Support(*support)),
            TypeKind::Struct(_) => "object",
        },
        _ => "object",
    }
}

/// The value expression and bound literal for a numeric comparison: bounds that fit the
/// field's type keep it; others (fractional, or beyond `i32`) compare in a wider type.
fn number_pair(kind: &str, bound: f64) -> (TokenStream, TokenStream) {
    let integral = bound.fract() == 0.0;
    let fits_i32 = integral && bound >= f64::from(i32::MIN) && bound <= f64::from(i32::MAX);
    let fits_i64 = integral && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&bound);
    let float = Literal::f64_suffixed(bound).into_token_stream();
    match kind {
        "i32" if fits_i32 => (quote!(*value), Literal::i32_suffixed(bound as i32).into_token_stream()),
        "i32" if fits_i64 => (quote!(i64::from(*value)), Literal::i64_suffixed(bound as i64).into_token_stream()),
        "i64" if fits_i64 => (quote!(*value), Literal::i64_suffixed(bound as i64).into_token_stream()),
        "f64" => (quote!(*value), float),
        "i32" => (quote!(f64::from(*value)), float),
        // An i64 beyond f64's exact range compares approximately, as JSON numbers do.
        _ => (quote!((*value as f64)), float),
    }
}

fn usize_literal(n: u64) -> Literal {
    Literal::usize_suffixed(n as usize)
}

use quote::ToTokens;
