//! The validation emitter: a `kube_apigen::Validate` impl per struct that checks every rule
//! its schema states, with exact Kubernetes field paths.
//!
//! Generated code shadows three names as it descends: `path` (a stack-built
//! `kube_apigen::field::Path`), `value` (a reference to the value at that path) and,
//! where transition rules need it, `old` (the value before an update, if any).
//!
//! Required fields: a required string, byte string or string enum that is empty (absent,
//! `null` or `""` on the wire, which decode the same) is reported as `Required value` and
//! its other rules are skipped, as Kubernetes' own validation treats an empty string as
//! missing. Other types have no "missing" state after decoding: an empty list or map is a
//! valid value (`minItems`/`minProperties` say otherwise when a spec means it), and
//! numbers, booleans, quantities and objects are checked by their other rules.

use kube_apigen_core::schema::ListType;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::Number;

use super::scope::Scope;
use super::{float_literal, integer_literal};
use crate::ir::{
    Api, Bound, CelRule, Field, FieldType, ObjectMetaUse, Presence, RuntimeType, Struct, Ty, TypeId, TypeKind, Wording,
};

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
            for id in api.type_ids() {
                let TypeKind::Struct(s) = &api.ty(id).kind else { continue };
                let has = !s.rules.is_empty()
                    || s.min_properties.is_some()
                    || s.max_properties.is_some()
                    || s.object_meta.is_some()
                    || s.fields.iter().any(|f| {
                        f.presence == Presence::MustBePresent
                            || f.presence == Presence::Required && emptiness(api, &f.ty.ty).is_some()
                            || analysis.position_has_checks(api, &f.ty)
                    });
                let old = s.rules.iter().any(|rule| rule.transition)
                    || s.fields.iter().any(|f| analysis.position_needs_old(api, &f.ty));
                let (has_before, old_before) = (analysis.has_checks[id.index()], analysis.needs_old[id.index()]);
                if has != has_before || old != old_before {
                    analysis.has_checks[id.index()] |= has;
                    analysis.needs_old[id.index()] |= old;
                    changed = true;
                }
            }
            if !changed {
                return analysis;
            }
        }
    }

    fn has_checks(&self, id: TypeId) -> bool {
        self.has_checks[id.index()]
    }

    fn needs_old(&self, id: TypeId) -> bool {
        self.needs_old[id.index()]
    }

    fn position_has_checks(&self, api: &Api, ft: &FieldType) -> bool {
        !ft.checks.cel.is_empty()
            || has_keyword_checks(ft)
            || match &ft.ty {
                Ty::Named(id) => match &api.ty(*id).kind {
                    TypeKind::Struct(_) => self.has_checks(*id),
                    TypeKind::Enum(_) => true,
                    TypeKind::Alias(target) => self.position_has_checks(api, target),
                    TypeKind::Runtime(runtime) => *runtime == RuntimeType::Quantity,
                },
                Ty::Runtime(RuntimeType::Quantity) => true,
                Ty::Vec(item) | Ty::Map(item) => self.position_has_checks(api, item),
                _ => false,
            }
    }

    fn position_needs_old(&self, api: &Api, ft: &FieldType) -> bool {
        ft.checks.cel.iter().any(|rule| rule.transition)
            || match &ft.ty {
                Ty::Named(id) => match &api.ty(*id).kind {
                    TypeKind::Struct(_) => self.needs_old(*id),
                    TypeKind::Alias(target) => self.position_needs_old(api, target),
                    _ => false,
                },
                Ty::Map(value) => self.position_needs_old(api, value),
                // Items of a list-map are paired with their old versions by key.
                Ty::Vec(item) if matches!(ft.checks.list_type, Some(ListType::Map(_))) => {
                    self.position_needs_old(api, item)
                }
                _ => false,
            }
    }
}

/// The `Validate` impl of a struct.
pub fn emit(scope: &mut Scope, analysis: &Analysis, id: TypeId, translate_cel: bool) -> TokenStream {
    let api = scope.api;
    let ty = api.ty(id);
    let TypeKind::Struct(s) = &ty.kind else { return TokenStream::new() };
    let name = format_ident!("{}", ty.name);
    let validate = scope.import("kube_apigen::Validate");
    let (path_type, error_list) =
        (scope.import("kube_apigen::field::Path"), scope.import("kube_apigen::field::ErrorList"));
    if !analysis.has_checks(id) {
        return quote! {
            impl #validate for #name {
                fn validate_into(&self, _old: Option<&Self>, _path: &#path_type<'_>, _errors: &mut #error_list) {}
            }
        };
    }
    let mut emitter = Emitter { scope, analysis, wording: ty.wording, translate_cel };
    let meta = s.object_meta.as_ref().map(|meta| emitter.object_meta(s, meta));
    let fields: Vec<TokenStream> = s.fields.iter().map(|field| emitter.field(field)).collect();
    let property_counts = emitter.property_counts(s);
    let object_rules = (!s.rules.is_empty()).then(|| {
        let old = analysis.needs_old(id).then(|| quote!(old));
        // `path` is the parameter, already a reference.
        let rules = emitter.cel(&s.rules, &FieldType::plain(Ty::Named(id)), &quote!(path), old);
        quote!(let value = self; #rules)
    });
    let old_name = if analysis.needs_old(id) { quote!(old) } else { quote!(_old) };
    quote! {
        impl #validate for #name {
            fn validate_into(&self, #old_name: Option<&Self>, path: &#path_type<'_>, errors: &mut #error_list) {
                #meta
                #(#fields)*
                #property_counts
                #object_rules
            }
        }
    }
}

/// The keyword checks of one query parameter, with `value` and `path` in scope.
pub fn parameter_checks(scope: &mut Scope, ty: &FieldType) -> TokenStream {
    Emitter { scope, analysis: &Analysis::default(), wording: Wording::BuiltIn, translate_cel: false }.keywords(ty)
}

/// Whether a position states keywords that generate checks (see [`Emitter::keywords`]).
pub fn has_keyword_checks(ft: &FieldType) -> bool {
    let (c, enum_values) = (&ft.checks.keywords, &ft.checks.enum_values);
    match &ft.ty {
        Ty::I32 | Ty::I64 | Ty::F64 => {
            c.minimum.is_some() || c.maximum.is_some() || enum_values.iter().any(|v| v.is_number())
        }
        Ty::String => {
            c.min_length.is_some()
                || c.max_length.is_some()
                || c.pattern.is_some()
                || enum_values.iter().any(|v| v.is_string())
                || ft.checks.format.is_some()
        }
        Ty::Vec(_) => {
            c.min_items.is_some()
                || c.max_items.is_some()
                || c.unique_items
                || matches!(ft.checks.list_type, Some(ListType::Map(_) | ListType::Set))
        }
        Ty::Map(_) => c.min_properties.is_some() || c.max_properties.is_some(),
        _ => false,
    }
}

/// The expression telling whether a required value of this type is missing, if the type
/// has an empty state.
fn emptiness(api: &Api, ty: &Ty) -> Option<TokenStream> {
    match ty {
        Ty::String => Some(quote!(value.is_empty())),
        Ty::Runtime(RuntimeType::Bytes) => Some(quote!(value.0.is_empty())),
        Ty::Named(id) => match &api.ty(*id).kind {
            TypeKind::Enum(_) => Some(quote!(value.as_str().is_empty())),
            TypeKind::Alias(target) => emptiness(api, &target.ty),
            TypeKind::Runtime(runtime) => emptiness(api, &Ty::Runtime(*runtime)),
            TypeKind::Struct(_) => None,
        },
        _ => None,
    }
}

struct Emitter<'s, 'a> {
    scope: &'s mut Scope<'a>,
    analysis: &'s Analysis,
    /// How the keyword errors of the type being checked are worded.
    wording: Wording,
    /// Whether CEL rules in the common subset run as Rust.
    translate_cel: bool,
}

impl Emitter<'_, '_> {
    fn api(&self) -> &Api {
        self.scope.api
    }

    /// `kube_apigen::rules`, imported.
    fn rules(&mut self) -> TokenStream {
        self.scope.import("kube_apigen::rules")
    }

    /// The function checking a keyword whose wording differs for custom resources
    /// (`kube_apigen::rules::schema`).
    fn worded(&mut self, check: &str) -> TokenStream {
        let rules = self.rules();
        let check = format_ident!("{}", check);
        match self.wording {
            Wording::BuiltIn => quote!(#rules::#check),
            Wording::SchemaValidator => quote!(#rules::schema::#check),
        }
    }

    fn field(&mut self, field: &Field) -> TokenStream {
        let api = self.scope.api;
        let ft = &field.ty;
        let required = field.presence == Presence::Required;
        let must_be_present = field.presence == Presence::MustBePresent;
        let required_check = if required { emptiness(api, &ft.ty) } else { None };
        if !self.analysis.position_has_checks(api, ft) && required_check.is_none() && !must_be_present {
            return TokenStream::new();
        }
        let wire = &field.wire_name;
        let rust = format_ident!("{}", field.rust_name);
        let needs_old = self.analysis.position_needs_old(api, ft);
        let checks = self.value(ft, needs_old);
        let old_binding = needs_old.then(|| match (required, field.boxed) {
            (true, false) => quote!(let old = old.map(|old| &old.#rust);),
            (true, true) => quote!(let old = old.map(|old| &*old.#rust);),
            (false, false) => quote!(let old = old.and_then(|old| old.#rust.as_ref());),
            (false, true) => quote!(let old = old.and_then(|old| old.#rust.as_deref());),
        });
        let needs_rules = required_check.is_some() || must_be_present;
        let rules = if needs_rules { self.rules() } else { TokenStream::new() };
        let body = match required_check {
            Some(empty) if checks.is_empty() => quote! {
                if #empty {
                    #rules::required(&path, errors);
                }
            },
            Some(empty) => quote! {
                if #empty {
                    #rules::required(&path, errors);
                } else {
                    #checks
                }
            },
            None => checks,
        };
        if required {
            quote! {
                {
                    let path = path.field(#wire);
                    let value = &self.#rust;
                    #old_binding
                    #body
                }
            }
        } else if must_be_present && body.is_empty() {
            quote! {
                if self.#rust.is_none() {
                    #rules::required(&path.field(#wire), errors);
                }
            }
        } else if must_be_present {
            quote! {
                {
                    let path = path.field(#wire);
                    match &self.#rust {
                        Some(value) => {
                            #old_binding
                            #body
                        }
                        None => #rules::required(&path, errors),
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
    fn value(&mut self, ft: &FieldType, with_old: bool) -> TokenStream {
        let api = self.scope.api;
        let keywords = self.keywords(ft);
        let old = with_old.then(|| quote!(old));
        let cel = self.cel(&ft.checks.cel, ft, &quote!(&path), old.clone());
        let nested = match &ft.ty {
            Ty::Named(id) => self.named(*id, old),
            Ty::Runtime(RuntimeType::Quantity) => {
                let rules = self.rules();
                quote!(#rules::quantity(&path, &value.0, errors);)
            }
            Ty::Vec(item) if self.analysis.position_has_checks(api, item) => {
                let item_old = match &ft.checks.list_type {
                    Some(ListType::Map(keys)) if with_old && self.analysis.position_needs_old(api, item) => {
                        list_map_key_fields(api, item, keys)
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
            Ty::Map(entry) if self.analysis.position_has_checks(api, entry) => {
                let entry_old = with_old && self.analysis.position_needs_old(api, entry);
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

    fn named(&mut self, id: TypeId, old: Option<TokenStream>) -> TokenStream {
        let api = self.scope.api;
        match &api.ty(id).kind {
            TypeKind::Struct(_) if self.analysis.has_checks(id) => {
                let old = match old {
                    Some(old) if self.analysis.needs_old(id) => old,
                    _ => quote!(None),
                };
                if self.scope.import_trait("kube_apigen::Validate") {
                    quote!(value.validate_into(#old, &path, errors);)
                } else {
                    let ty = self.scope.named(id);
                    quote!(<#ty as kube_apigen::Validate>::validate_into(value, #old, &path, errors);)
                }
            }
            TypeKind::Enum(_) => {
                let ty = self.scope.named(id);
                let rules = self.rules();
                quote! {
                    if !value.is_known() {
                        #rules::not_supported(&path, value.as_str(), #ty::VALUES, errors);
                    }
                }
            }
            TypeKind::Alias(target) => self.value(target, old.is_some()),
            TypeKind::Runtime(RuntimeType::Quantity) => {
                let rules = self.rules();
                quote!(#rules::quantity(&path, &value.0, errors);)
            }
            _ => TokenStream::new(),
        }
    }

    /// The OpenAPI keywords at one position.
    fn keywords(&mut self, ft: &FieldType) -> TokenStream {
        if !has_keyword_checks(ft) {
            return TokenStream::new();
        }
        let (checks, keywords) = (&ft.checks, &ft.checks.keywords);
        let mut out = Vec::new();
        let numeric = match ft.ty {
            Ty::I32 => Some(Numeric::I32),
            Ty::I64 => Some(Numeric::I64),
            Ty::F64 => Some(Numeric::F64),
            _ => None,
        };
        if let Some(kind) = numeric {
            for (bound, check) in [(&keywords.minimum, "minimum"), (&keywords.maximum, "maximum")] {
                let Some(Bound { value: bound, exclusive }) = bound else { continue };
                let (value, bound) = kind.compare(bound);
                let check = self.worded(check);
                out.push(quote!(#check(&path, #value, #bound, #exclusive, errors);));
            }
            let allowed: Vec<&Number> = checks.enum_values.iter().filter_map(|v| v.as_number()).collect();
            if !allowed.is_empty() {
                let value = kind.compare(allowed[0]).0;
                let allowed = allowed.iter().map(|n| kind.compare(n).1);
                let rules = self.rules();
                out.push(quote!(#rules::one_of(&path, #value, &[#(#allowed),*], errors);));
            }
        }
        if ft.ty == Ty::String {
            if let Some(min) = keywords.min_length {
                let (min, check) = (usize_literal(min), self.worded("min_length"));
                out.push(quote!(#check(&path, value, #min, errors);));
            }
            if let Some(max) = keywords.max_length {
                let (max, rules) = (usize_literal(max), self.rules());
                out.push(quote!(#rules::max_length(&path, value, #max, errors);));
            }
            if let Some(pattern) = &keywords.pattern {
                let rules = self.rules();
                let check = match self.wording {
                    Wording::BuiltIn => quote!(PATTERN.check(&path, value, errors);),
                    Wording::SchemaValidator => quote!(#rules::schema::pattern(&PATTERN, &path, value, errors);),
                };
                out.push(quote! {
                    static PATTERN: #rules::Pattern = #rules::Pattern::new(#pattern);
                    #check
                });
            }
            if let Some(format) = &checks.format {
                let rules = self.rules();
                out.push(quote!(#rules::schema::format(&path, #format, value, errors);));
            }
            let allowed: Vec<&str> = checks.enum_values.iter().filter_map(|v| v.as_str()).collect();
            if !allowed.is_empty() {
                let rules = self.rules();
                out.push(quote! {
                    if ![#(#allowed),*].contains(&value.as_str()) {
                        #rules::not_supported(&path, value, &[#(#allowed),*], errors);
                    }
                });
            }
        }
        if let Ty::Vec(item) = &ft.ty {
            if let Some(min) = keywords.min_items {
                let (min, check) = (usize_literal(min), self.worded("min_items"));
                out.push(quote!(#check(&path, value.len(), #min, errors);));
            }
            if let Some(max) = keywords.max_items {
                let (max, rules) = (usize_literal(max), self.rules());
                out.push(quote!(#rules::max_items(&path, value.len(), #max, errors);));
            }
            match &checks.list_type {
                Some(ListType::Map(keys)) => out.push(self.list_map(item, keys)),
                Some(ListType::Set) => out.push(self.unique_items()),
                _ if keywords.unique_items => out.push(self.unique_items()),
                _ => {}
            }
        }
        if matches!(ft.ty, Ty::Map(_)) {
            if let Some(min) = keywords.min_properties {
                let (min, check) = (usize_literal(min), self.worded("min_properties"));
                out.push(quote!(#check(&path, value.len(), #min, errors);));
            }
            if let Some(max) = keywords.max_properties {
                let (max, rules) = (usize_literal(max), self.rules());
                out.push(quote!(#rules::max_properties(&path, value.len(), #max, errors);));
            }
        }
        quote!(#(#out)*)
    }

    fn unique_items(&mut self) -> TokenStream {
        let rules = self.rules();
        quote!(#rules::unique_items(&path, value, errors);)
    }

    /// `minProperties`/`maxProperties` of an object with declared properties: the fields
    /// present on the wire are counted on its JSON (built only for such objects).
    fn property_counts(&mut self, s: &Struct) -> Option<TokenStream> {
        if s.min_properties.is_none() && s.max_properties.is_none() {
            return None;
        }
        let min = s.min_properties.map(|n| {
            let (n, check) = (usize_literal(n), self.worded("min_properties"));
            quote!(#check(path, count, #n, errors);)
        });
        let max = s.max_properties.map(|n| {
            let (n, rules) = (usize_literal(n), self.rules());
            quote!(#rules::max_properties(path, count, #n, errors);)
        });
        Some(quote! {
            let count = kube_apigen::cel::to_json(self).as_object().map_or(0, |object| object.len());
            #min
            #max
        })
    }

    /// Uniqueness of a list-map's items by their key fields.
    fn list_map(&mut self, item: &FieldType, keys: &[String]) -> TokenStream {
        let Some(key_fields) = list_map_key_fields(self.api(), item, keys) else {
            // Keys of free-form items cannot be named statically; compare whole items.
            return self.unique_items();
        };
        let rules = self.rules();
        let names: Vec<&str> = keys.iter().map(String::as_str).collect();
        quote! {
            #rules::unique_by(
                &path,
                value,
                &[#(#names),*],
                |a, b| #(a.#key_fields == b.#key_fields)&&*,
                |item| vec![#(kube_apigen::cel::to_json(&item.#key_fields)),*],
                errors,
            );
        }
    }

    /// CEL rules at a position of type `self_ty` (`value` at the `&Path` expression
    /// `path`), compiled once per process; those the fast path translates run as Rust (see
    /// `super::cel`).
    fn cel(
        &mut self,
        rules: &[CelRule],
        self_ty: &FieldType,
        path: &TokenStream,
        old: Option<TokenStream>,
    ) -> TokenStream {
        if rules.is_empty() {
            return TokenStream::new();
        }
        let schema_type = schema_type(self.api(), &self_ty.ty);
        super::cel::node(self.scope, rules, path, self_ty, schema_type, old.as_ref(), self.translate_cel)
    }

    fn object_meta(&mut self, s: &Struct, meta: &ObjectMetaUse) -> TokenStream {
        let field = &s.fields[meta.field];
        let metadata = format_ident!("{}", field.rust_name);
        let view = match field.presence {
            Presence::Required => quote!(Some(&self.#metadata)),
            _ => quote!(self.#metadata.as_ref()),
        };
        let text = |field: &Option<String>| match field {
            Some(name) => {
                let name = format_ident!("{}", name);
                quote!(metadata.and_then(|m| m.#name.as_deref()).unwrap_or_default())
            }
            None => quote!(""),
        };
        let map = |field: &Option<String>| match field {
            Some(name) => {
                let name = format_ident!("{}", name);
                quote!(metadata.and_then(|m| m.#name.as_ref()))
            }
            None => quote!(None),
        };
        let (name, generate_name, namespace) = (text(&meta.name), text(&meta.generate_name), text(&meta.namespace));
        let (labels, annotations) = (map(&meta.labels), map(&meta.annotations));
        let scope_variant = super::variant(meta.scope);
        let name_rule = super::variant(meta.name_rule);
        let object_meta = self.scope.import("kube_apigen::meta");
        let scope_type = self.scope.import("kube_apigen::Scope");
        quote! {
            let metadata = #view;
            #object_meta::validate_object_meta(
                &path.field("metadata"),
                #object_meta::ObjectMetaView {
                    name: #name,
                    generate_name: #generate_name,
                    namespace: #namespace,
                    labels: #labels,
                    annotations: #annotations,
                },
                #scope_type::#scope_variant,
                #object_meta::NameRule::#name_rule,
                errors,
            );
        }
    }
}

/// The Rust fields holding a list-map item's keys, when the item is a struct.
fn list_map_key_fields(api: &Api, item: &FieldType, keys: &[String]) -> Option<Vec<Ident>> {
    let Ty::Named(id) = &item.ty else { return None };
    let TypeKind::Struct(s) = &api.ty(*id).kind else { return None };
    Some(
        keys.iter()
            .filter_map(|key| s.fields.iter().find(|f| &f.wire_name == key))
            .map(|f| format_ident!("{}", f.rust_name))
            .collect(),
    )
}

/// The schema `type` a CEL error shows as the bad value.
fn schema_type(api: &Api, ty: &Ty) -> &'static str {
    match ty {
        Ty::Bool => "boolean",
        Ty::I32 | Ty::I64 => "integer",
        Ty::F64 => "number",
        Ty::String
        | Ty::Runtime(RuntimeType::Bytes | RuntimeType::Time | RuntimeType::MicroTime | RuntimeType::Quantity) => {
            "string"
        }
        Ty::Runtime(RuntimeType::IntOrString) => "",
        Ty::Vec(_) => "array",
        Ty::Named(id) => match &api.ty(*id).kind {
            TypeKind::Enum(_) => "string",
            TypeKind::Alias(target) => schema_type(api, &target.ty),
            TypeKind::Runtime(runtime) => schema_type(api, &Ty::Runtime(*runtime)),
            TypeKind::Struct(_) => "object",
        },
        _ => "object",
    }
}

/// The Rust type of a numeric field.
#[derive(Clone, Copy)]
enum Numeric {
    I32,
    I64,
    F64,
}

impl Numeric {
    /// The value expression and bound literal of a comparison: bounds that fit the
    /// field's type keep it; others (fractional, or beyond `i32`) compare in a wider type.
    fn compare(self, bound: &Number) -> (TokenStream, TokenStream) {
        let integral = bound
            .as_i64()
            .or_else(|| bound.as_f64().filter(|f| f.fract() == 0.0 && (-9.2e18..9.2e18).contains(f)).map(|f| f as i64));
        let float = || float_literal(bound.as_f64().expect("a JSON number is a float"));
        match (self, integral) {
            (Numeric::I32, Some(n)) if i32::try_from(n).is_ok() => (quote!(*value), integer_literal(n)),
            (Numeric::I32, Some(n)) => (quote!(i64::from(*value)), integer_literal(n)),
            (Numeric::I64, Some(n)) => (quote!(*value), integer_literal(n)),
            (Numeric::F64, _) => (quote!(*value), float()),
            (Numeric::I32, None) => (quote!(f64::from(*value)), float()),
            // An i64 beyond f64's exact range compares approximately, as JSON numbers do.
            (Numeric::I64, None) => (quote!((*value as f64)), float()),
        }
    }
}

fn usize_literal(n: u64) -> proc_macro2::Literal {
    proc_macro2::Literal::u64_unsuffixed(n)
}
