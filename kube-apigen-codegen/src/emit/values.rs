//! Spec default values as Rust expressions: the value decoding the JSON gives, written
//! out, so a model's `Default` and its serde defaults need no JSON at run time.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use super::scope::Scope;
use super::{float_literal, integer_literal};
use crate::ir::{Field, Presence, RuntimeType, Ty, TypeKind};

/// The value a field holds when decoding gives it `json` (its declared type: `Option`
/// unless required, boxed where the IR says).
pub fn default_value(scope: &mut Scope, field: &Field, json: &Value) -> TokenStream {
    if json.is_null() {
        return null_value(scope, field);
    }
    let mut value = self::value(scope, &field.ty.ty, json);
    if field.boxed {
        value = quote!(Box::new(#value));
    }
    if field.presence.is_option() { quote!(Some(#value)) } else { value }
}

/// What a field decodes `null` as: its default when `null` takes it, `None` for other
/// optional fields, Go's zero value for required ones.
fn null_value(scope: &mut Scope, field: &Field) -> TokenStream {
    match &field.default {
        Some(default) if default.null_takes_default && !default.value.is_null() => {
            default_value(scope, field, &default.value)
        }
        _ if field.presence == Presence::Required => quote!(Default::default()),
        _ => quote!(None),
    }
}

/// `json` (not `null`) as a value of `ty`; the generator checked that it fits.
fn value(scope: &mut Scope, ty: &Ty, json: &Value) -> TokenStream {
    match (ty, json) {
        // Go's zero value, as decoding gives for `null` items and map values.
        (_, Value::Null) => quote!(Default::default()),
        (Ty::Bool, Value::Bool(flag)) => quote!(#flag),
        (Ty::I32 | Ty::I64, Value::Number(n)) => integer_literal(n.as_i64().expect("checked to be an integer")),
        (Ty::F64, Value::Number(n)) => float_literal(n.as_f64().expect("a JSON number is a float")),
        (Ty::String, Value::String(text)) => quote!(#text.to_owned()),
        (Ty::Value, json) => {
            let json_macro = scope.import("serde_json::json");
            let tokens = json_tokens(json);
            quote!(#json_macro!(#tokens))
        }
        (Ty::Runtime(runtime), json) => runtime_value(scope, *runtime, json),
        (Ty::Named(id), json) => match &scope.api.ty(*id).kind {
            TypeKind::Struct(s) => {
                let name = scope.named(*id);
                let object = json.as_object().expect("checked to be an object");
                let mut given = Vec::new();
                for field in &s.fields {
                    if let Some(value) = object.get(&field.wire_name) {
                        let rust = format_ident!("{}", field.rust_name);
                        let value = default_value(scope, field, value);
                        given.push(quote!(#rust: #value,));
                    }
                }
                let rest =
                    (given.len() < s.fields.len() || s.unknown_fields.is_some()).then(|| quote!(..Default::default()));
                quote!(#name { #(#given)* #rest })
            }
            TypeKind::Enum(e) => {
                let name = scope.named(*id);
                let text = json.as_str().expect("checked to be a string");
                match e.variants.iter().find(|v| v.value == text) {
                    Some(variant) => {
                        let variant = format_ident!("{}", variant.rust_name);
                        quote!(#name::#variant)
                    }
                    None => {
                        let other = format_ident!("{}", e.other_variant);
                        quote!(#name::#other(#text.to_owned()))
                    }
                }
            }
            TypeKind::Alias(target) => value(scope, &target.ty, json),
            TypeKind::Runtime(runtime) => runtime_value(scope, *runtime, json),
        },
        (Ty::Vec(_), Value::Array(items)) if items.is_empty() => quote!(Vec::new()),
        (Ty::Vec(item), Value::Array(items)) => {
            let items: Vec<TokenStream> = items.iter().map(|v| value(scope, &item.ty, v)).collect();
            quote!(vec![#(#items),*])
        }
        (Ty::Map(_), Value::Object(entries)) if entries.is_empty() => {
            let map = scope.import("std::collections::BTreeMap");
            quote!(#map::new())
        }
        (Ty::Map(values), Value::Object(entries)) => {
            let map = scope.import("std::collections::BTreeMap");
            let entries: Vec<TokenStream> = entries
                .iter()
                .map(|(key, v)| {
                    let v = value(scope, &values.ty, v);
                    quote!((#key.to_owned(), #v))
                })
                .collect();
            quote!(#map::from([#(#entries),*]))
        }
        (ty, json) => unreachable!("the generator checked that {json} fits {ty:?}"),
    }
}

fn runtime_value(scope: &mut Scope, runtime: RuntimeType, json: &Value) -> TokenStream {
    let name = scope.runtime_type(runtime);
    match (runtime, json) {
        (RuntimeType::IntOrString, Value::Number(n)) => {
            let n = integer_literal(n.as_i64().expect("checked to be an integer"));
            quote!(#name::Int(#n))
        }
        (RuntimeType::IntOrString, Value::String(text)) => quote!(#name::String(#text.to_owned())),
        // What the API server holds once it has read the default.
        (RuntimeType::Quantity, Value::String(_) | Value::Number(_)) => {
            let quantity: kube_apigen_core::Quantity =
                serde_json::from_value(json.clone()).expect("a string or a number is a quantity");
            let text = quantity.as_str();
            quote!(#name(#text.to_owned()))
        }
        // Checked to parse as the runtime's type does; k8s-openapi's wraps the same timestamp.
        (RuntimeType::Time | RuntimeType::MicroTime, Value::String(text)) if scope.k8s_openapi() => {
            let runtime = scope.import(&format!("kube_apigen::{}", runtime.name()));
            quote!(#name(#text.parse::<#runtime>().unwrap_or_default().0))
        }
        (RuntimeType::Time | RuntimeType::MicroTime, Value::String(text)) => quote!(#text.parse().unwrap_or_default()),
        (RuntimeType::Bytes, Value::String(_)) => {
            let bytes: kube_apigen_core::Bytes = serde_json::from_value(json.clone()).expect("checked to decode");
            let bytes = bytes.0.iter().map(|b| Literal::u8_unsuffixed(*b));
            quote!(#name(vec![#(#bytes),*]))
        }
        (_, json) => {
            let json_macro = scope.import("serde_json::json");
            let tokens = json_tokens(json);
            quote!(serde_json::from_value(#json_macro!(#tokens)).unwrap_or_default())
        }
    }
}

/// JSON as the tokens of `serde_json::json!`.
fn json_tokens(json: &Value) -> TokenStream {
    match json {
        Value::Null => quote!(null),
        Value::Bool(flag) => quote!(#flag),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => integer_literal(i),
            (None, Some(f)) => float_literal(f),
            (None, None) => unreachable!("a JSON number is a float"),
        },
        Value::String(text) => quote!(#text),
        Value::Array(items) => {
            let items = items.iter().map(json_tokens);
            quote!([#(#items),*])
        }
        Value::Object(entries) => {
            let entries = entries.iter().map(|(key, value)| {
                let value = json_tokens(value);
                quote!(#key: #value)
            });
            quote!({#(#entries),*})
        }
    }
}
