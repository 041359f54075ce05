//! CEL rules in generated code: checked by the interpreter (`kube_apigen::cel`), or, for the
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
//! might, give an evaluation error; the generated code then asks the interpreter. A false
//! rule's error is built by `kube_apigen::cel`, the same function for both paths, so errors
//! keep their exact text.

#[cfg(test)]
mod tests;
mod translate;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::scope::Scope;
use crate::ir::{CelRule, FieldType, Ty};
pub use translate::{Transpiled, transpile};

/// The CEL checks of one node (`value` at `path`, a `&Path` expression such as `&path`;
/// `old` its value before an update when in scope): one statement per translated rule,
/// one per run of rules the interpreter checks, in the rules' order, through a
/// `kube_apigen::cel::Node`, which makes the node's JSON copy only when the interpreter runs.
pub(super) fn node(
    scope: &mut Scope,
    rules: &[CelRule],
    path: &TokenStream,
    self_ty: &FieldType,
    schema_type: &str,
    old: Option<&TokenStream>,
    translate: bool,
) -> TokenStream {
    let translated: Vec<Option<Transpiled>> =
        rules.iter().map(|rule| if translate { transpile(scope.api, rule, self_ty) } else { None }).collect();
    let param = translated.iter().any(Option::is_some).then(|| param_type(scope, self_ty));
    let (node, lazy_rule) = (scope.import("kube_apigen::cel::Node"), scope.import("kube_apigen::cel::LazyRule"));
    let spec = scope.import("kube_apigen::cel::CelRuleSpec");
    let mut items = Vec::new();
    let mut index = 0;
    while index < rules.len() {
        let Some(transpiled) = &translated[index] else {
            // A run of rules the interpreter checks.
            let start = index;
            while index < rules.len() && translated[index].is_none() {
                index += 1;
            }
            let run = &rules[start..index];
            let name = format_ident!("RULES_{start}");
            let count = Literal::usize_unsuffixed(run.len());
            let lazy: Vec<TokenStream> = run.iter().map(|rule| lazy(&lazy_rule, &spec, rule)).collect();
            let old = match old {
                Some(old) if run.iter().any(|rule| rule.transition) => old.clone(),
                _ => quote!(None),
            };
            items.push(quote! {
                static #name: [#lazy_rule; #count] = [#(#lazy),*];
                node.interpreted(&#name, #old, errors);
            });
            continue;
        };
        let function = format_ident!("rule_{index}");
        let name = format_ident!("RULE_{index}");
        let function_item = transpiled.function(&function, param.as_ref().expect("a rule translated"));
        let lazy = lazy(&lazy_rule, &spec, &rules[index]);
        items.push(quote! {
            #function_item
            static #name: #lazy_rule = #lazy;
            node.translated(&#name, #function(value), errors);
        });
        index += 1;
    }
    quote! {
        let node = #node::new(value, #path, #schema_type);
        #(#items)*
    }
}

/// The Rust type `value` is passed as to a rule function at a node of type `ty`: `str`
/// and slices rather than `String` and `Vec` (callers' references coerce).
fn param_type(scope: &mut Scope, ty: &FieldType) -> TokenStream {
    match scope.api.resolve(&ty.ty) {
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

/// `LazyRule::new(CelRuleSpec::new(...).with_message(...))`: a rule as a `static` of
/// generated code, compiled when first needed.
fn lazy(lazy_rule: &TokenStream, spec: &TokenStream, rule: &CelRule) -> TokenStream {
    let text = &rule.text;
    let source = &text.rule;
    let mut tokens = quote!(#spec::new(#source));
    for (value, method) in [
        (&text.message, quote!(with_message)),
        (&text.message_expression, quote!(with_message_expression)),
        (&text.field_path, quote!(with_field_path)),
        (&text.reason, quote!(with_reason)),
    ] {
        if let Some(value) = value {
            tokens = quote!(#tokens.#method(#value));
        }
    }
    quote!(#lazy_rule::new(#tokens))
}
