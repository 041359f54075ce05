//! CEL rules in generated code: checked by the interpreter (`support::cel`), or, for the
//! common subset, translated to Rust when the crate is generated ([`translate`]).
//!
//! Checking a rule with the interpreter costs a JSON copy of the node, a second copy as
//! CEL values, and a walk of the rule's tree, on every request. Most rules Kubernetes
//! specs carry are small boolean expressions over the node's own fields; those become a
//! Rust function over the typed node:
//!
//! ```text
//! !has(self.minReplicas) || self.maxReplicas >= self.minReplicas
//! fn rule_0(value: &HorizontalPodAutoscalerSpec) -> Option<bool> {
//!     Some(value.min_replicas.is_none() || i64::from(value.max_replicas) >= i64::from(value.min_replicas?))
//! }
//! ```
//!
//! The result is always the interpreter's: a translation answers `Some(b)` only when the
//! interpreter gives `b`, and `None` ("cannot decide") wherever the interpreter would, or
//! might, give an evaluation error; the generated code then asks the interpreter, so
//! errors keep their exact text.

#[cfg(test)]
mod tests;
mod translate;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::scope::Scope;
use crate::ir::{CelRule, FieldType, Ty};
pub use translate::{Transpiled, transpile};

/// The CEL checks of one node, when at least one of its rules translates; `None` leaves
/// the node to the interpreter entirely.
///
/// Rules run in their order. A translated rule calls its function: `true` does nothing,
/// `false` pushes the error the interpreter would (for a `messageExpression`, it asks the
/// interpreter, which evaluates the message), `None` asks the interpreter. Runs of
/// untranslated rules are checked together by the interpreter. The node's JSON copy is
/// made at most once, and only when the interpreter is asked.
pub(super) fn node(
    scope: &mut Scope,
    rules: &[CelRule],
    self_ty: &FieldType,
    schema_type: &str,
    old: Option<&TokenStream>,
) -> Option<TokenStream> {
    let translated: Vec<Option<Transpiled>> = rules.iter().map(|rule| transpile(scope.api, rule, self_ty)).collect();
    if translated.iter().all(Option::is_none) {
        return None;
    }
    let param = param_type(scope, self_ty);
    let json = quote!(json.get_or_insert_with(|| support::cel::to_json(value)));
    let mut needs_json = false;
    let mut items = Vec::new();
    let mut index = 0;
    while index < rules.len() {
        let Some(transpiled) = &translated[index] else {
            // A run of rules the interpreter checks, with one conversion of the node.
            let start = index;
            while index < rules.len() && translated[index].is_none() {
                index += 1;
            }
            needs_json = true;
            items.push(interpreted(&rules[start..index], schema_type, old, &json, &format!("RULES_{start}")));
            continue;
        };
        let rule = &rules[index];
        let function = format_ident!("rule_{index}");
        let compiled = format_ident!("RULE_{index}");
        let message_from_interpreter = rule.text.message_expression.as_deref().is_some_and(|m| !m.trim().is_empty())
            && reason(rule) != Reason::Duplicate;
        let fallback = quote! {
            support::cel::check_rules_typed(std::slice::from_ref(&*#compiled), &path, #schema_type, #json, None, errors);
        };
        let failure = if message_from_interpreter { fallback.clone() } else { failure(rule, schema_type) };
        let spec = compiled_rule(rule);
        let needs_static = transpiled.fallible || message_from_interpreter;
        needs_json |= needs_static;
        let compiled_static = needs_static.then(|| {
            quote!(static #compiled: std::sync::LazyLock<support::cel::CelRule> = std::sync::LazyLock::new(|| #spec);)
        });
        let function_item = transpiled.function(&function, &param);
        let check = if transpiled.fallible {
            quote! {
                match #function(value) {
                    Some(true) => {}
                    Some(false) => { #failure }
                    None => { #fallback }
                }
            }
        } else {
            quote! {
                if !#function(value) {
                    #failure
                }
            }
        };
        items.push(quote! { #function_item #compiled_static #check });
        index += 1;
    }
    let json_cell = needs_json.then(|| quote!(let mut json = None;));
    Some(quote! { #json_cell #(#items)* })
}

/// Rules the interpreter checks at a node, compiled once per process into `static_name`;
/// `json` is the node's JSON (a reference expression).
pub(super) fn interpreted(
    rules: &[CelRule],
    schema_type: &str,
    old: Option<&TokenStream>,
    json: &TokenStream,
    static_name: &str,
) -> TokenStream {
    let name = format_ident!("{}", static_name);
    let count = Literal::usize_unsuffixed(rules.len());
    let specs = rules.iter().map(compiled_rule);
    let old = match old {
        Some(old) if rules.iter().any(|rule| rule.transition) => quote!(#old.map(support::cel::to_json).as_ref()),
        _ => quote!(None),
    };
    quote! {
        static #name: std::sync::LazyLock<[support::cel::CelRule; #count]> =
            std::sync::LazyLock::new(|| [#(#specs),*]);
        support::cel::check_rules_typed(&*#name, &path, #schema_type, #json, #old, errors);
    }
}

/// The Rust type `value` is passed as to a rule function at a node of type `ty`: `str`
/// and slices rather than `String` and `Vec` (callers' references coerce).
fn param_type(scope: &mut Scope, ty: &FieldType) -> TokenStream {
    match translate::resolve(scope.api, &ty.ty) {
        Ty::String => quote!(str),
        Ty::Vec(item) => {
            let item = scope.rust_type(&item.ty);
            quote!([#item])
        }
        other => {
            let other = other.clone();
            scope.rust_type(&other)
        }
    }
}

/// `support::cel::CelRule::new(&spec)` for a rule, as generated code compiles it.
fn compiled_rule(rule: &CelRule) -> TokenStream {
    let text = &rule.text;
    let source = &text.rule;
    let mut spec = quote!(support::cel::CelRuleSpec::new(#source));
    for (value, method) in [
        (&text.message, quote!(with_message)),
        (&text.message_expression, quote!(with_message_expression)),
        (&text.field_path, quote!(with_field_path)),
        (&text.reason, quote!(with_reason)),
    ] {
        if let Some(value) = value {
            spec = quote!(#spec.#method(#value));
        }
    }
    quote!(support::cel::CelRule::new(&#spec))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Invalid,
    Forbidden,
    Required,
    Duplicate,
}

/// The `reason` of a rule that compiles.
fn reason(rule: &CelRule) -> Reason {
    match rule.text.reason.as_deref() {
        Some("FieldValueForbidden") => Reason::Forbidden,
        Some("FieldValueRequired") => Reason::Required,
        Some("FieldValueDuplicate") => Reason::Duplicate,
        _ => Reason::Invalid,
    }
}

/// The statements pushing the error of a false rule, as `support::cel` builds it: the
/// type from `reason`, the schema type as the bad value (for `Invalid` and `Duplicate`),
/// the message (else `failed rule: <rule>`) as the detail, at `path` plus `fieldPath`.
fn failure(rule: &CelRule, schema_type: &str) -> TokenStream {
    let detail = match &rule.text.message {
        Some(message) if !message.is_empty() => message.trim().to_owned(),
        _ => format!("failed rule: {}", rule.text.rule.trim()),
    };
    let error = match reason(rule) {
        Reason::Invalid => quote!(support::validation::FieldError::invalid(&path, #schema_type, #detail)),
        Reason::Forbidden => quote! {
            support::validation::FieldError::new(&path, support::validation::ErrorType::Forbidden, None, #detail)
        },
        Reason::Required => quote!(support::validation::FieldError::required(&path, #detail)),
        Reason::Duplicate => quote!(support::validation::FieldError::duplicate(&path, #schema_type)),
    };
    match rule.text.field_path.as_deref().filter(|p| !p.is_empty()).map(render_field_path) {
        Some(field_path) => quote!(errors.push(#error.at_child(#field_path));),
        None => quote!(errors.push(#error);),
    }
}

/// A rule's `fieldPath` as Kubernetes renders it below the node: `spec.replicas`,
/// `labels[app]`. Rules that compile have a valid one.
fn render_field_path(path: &str) -> String {
    let mut out = String::new();
    for segment in support::cel::parse_field_path(path).unwrap_or_default() {
        match segment {
            support::cel::FieldPathSegment::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&name);
            }
            support::cel::FieldPathSegment::Key(key) => {
                out.push('[');
                out.push_str(&key);
                out.push(']');
            }
        }
    }
    out
}
