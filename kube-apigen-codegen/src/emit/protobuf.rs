//! The protobuf emitter: `kube_apigen::protobuf::Message` for structs with a message (each
//! field written by its number, in number order), `Value` for the string enums they hold,
//! and `Payload` for request and response bodies.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::scope::Scope;
use crate::ir::{Field, ProtoField, ProtoLabel, ProtoMessage, Ty, TypeId, TypeKind};

pub fn emit(scope: &mut Scope, id: TypeId) -> TokenStream {
    let api = scope.api;
    let ty = api.ty(id);
    let name = format_ident!("{}", ty.name);
    let go_type = ty.go_name();
    let mut tokens = TokenStream::new();
    match &ty.kind {
        // k8s-openapi's `Time` has no `Default`, which decoding fields in place needs: the
        // models of such crates are JSON (and YAML) only, as custom resources are.
        TypeKind::Struct(_) if scope.k8s_openapi() && api.protobuf.payloads.contains(&id) => {
            let protobuf = scope.import("kube_apigen::protobuf");
            tokens.extend(quote! {
                impl #protobuf::Payload for #name {
                    const GO_TYPE: &'static str = #go_type;
                }
            });
        }
        _ if scope.k8s_openapi() => {}
        TypeKind::Struct(s) => {
            if let Some(message) = api.protobuf.messages.get(&id) {
                tokens.extend(message_impl(scope, &name, &s.fields, message));
            }
            if api.protobuf.payloads.contains(&id) {
                let protobuf = scope.import("kube_apigen::protobuf");
                let codec = match s.gvks.as_slice() {
                    [gvk] => {
                        let (api_version, kind) = (gvk.api_version(), &gvk.kind);
                        quote!(#protobuf::Codec::message(#api_version, #kind))
                    }
                    _ => quote!(#protobuf::Codec::UNTYPED),
                };
                tokens.extend(match api.protobuf.messages.contains_key(&id) {
                    true => quote! {
                        impl #protobuf::Payload for #name {
                            const GO_TYPE: &'static str = #go_type;
                            const PROTOBUF: Option<#protobuf::Codec<Self>> = Some(#codec);
                        }
                    },
                    false => quote! {
                        impl #protobuf::Payload for #name {
                            const GO_TYPE: &'static str = #go_type;
                        }
                    },
                });
            }
        }
        TypeKind::Enum(_) if api.protobuf.enums.contains(&id) => tokens.extend(enum_impl(scope, &name)),
        _ => {}
    }
    tokens
}

fn message_impl(scope: &mut Scope, name: &proc_macro2::Ident, fields: &[Field], message: &ProtoMessage) -> TokenStream {
    let protobuf = scope.import("kube_apigen::protobuf");
    let numbered: Vec<(&Field, ProtoField)> =
        fields.iter().zip(&message.fields).filter_map(|(field, proto)| proto.map(|proto| (field, proto))).collect();
    // The message's own fields, each embedded struct's fields standing as one field.
    let mut top: BTreeMap<u32, Vec<(&Field, ProtoField)>> = BTreeMap::new();
    for &(field, proto) in &numbered {
        top.entry(proto.embedded_in.unwrap_or(proto.number)).or_default().push((field, proto));
    }
    let (mut encodes, mut merges) = (Vec::new(), Vec::new());
    for (number, mut held) in top {
        held.sort_by_key(|(_, proto)| proto.number);
        let number = Literal::u32_unsuffixed(number);
        let field_merges = held.iter().map(|(field, proto)| {
            let inner = Literal::u32_unsuffixed(proto.number);
            let merge = merge(&protobuf, field, *proto, is_text(scope, field));
            quote!(#inner => #merge,)
        });
        match held.as_slice() {
            [(field, proto)] if proto.embedded_in.is_none() => {
                encodes.push(encode(&protobuf, field, *proto));
                merges.extend(field_merges);
            }
            // Go writes an embedded struct always, as a message of its fields.
            _ => {
                let inner_encodes: Vec<TokenStream> =
                    held.iter().map(|(field, proto)| encode(&protobuf, field, *proto)).collect();
                encodes.push(quote! {
                    #protobuf::encode_embedded(#number, buf, |buf| { #(#inner_encodes;)* })
                });
                let field_merges: Vec<TokenStream> = field_merges.collect();
                merges.push(quote! {
                    #number => #protobuf::merge_embedded(wire_type, buf, depth, |number, wire_type, buf, depth| match number {
                        #(#field_merges)*
                        _ => #protobuf::skip(number, wire_type, buf, depth),
                    }),
                });
            }
        }
    }
    let type_meta = type_meta(fields, message);
    let doc = format!(" Encoded as the protobuf message `{}`.", message.name);
    quote! {
        #[doc = #doc]
        impl #protobuf::Message for #name {
            fn encode_fields(&self, buf: &mut Vec<u8>) {
                #(#encodes;)*
            }

            fn merge_field(
                &mut self,
                number: u32,
                wire_type: #protobuf::WireType,
                buf: &mut &[u8],
                depth: #protobuf::Depth,
            ) -> Result<(), #protobuf::DecodeError> {
                match number {
                    #(#merges)*
                    _ => #protobuf::skip(number, wire_type, buf, depth),
                }
            }

            #type_meta
        }
    }
}

/// `set_type_meta` for a struct with `apiVersion` and `kind`, which the envelope carries:
/// a decoded object gets the envelope's, as the API server's decoder gives them.
fn type_meta(fields: &[Field], message: &ProtoMessage) -> Option<TokenStream> {
    let carried: Vec<&Field> =
        fields.iter().zip(&message.fields).filter(|(_, proto)| proto.is_none()).map(|(field, _)| field).collect();
    if carried.is_empty() {
        return None;
    }
    let assignments = carried.iter().map(|field| {
        let rust = format_ident!("{}", field.rust_name);
        let value = if field.wire_name == "kind" { quote!(kind) } else { quote!(api_version) };
        if field.presence.is_option() {
            quote!(self.#rust = (!#value.is_empty()).then(|| #value.to_owned());)
        } else {
            quote!(self.#rust = #value.to_owned();)
        }
    });
    Some(quote! {
        fn set_type_meta(&mut self, api_version: &str, kind: &str) {
            #(#assignments)*
        }
    })
}

/// Writes the field.
fn encode(protobuf: &TokenStream, field: &Field, proto: ProtoField) -> TokenStream {
    let (rust, number) = (format_ident!("{}", field.rust_name), Literal::u32_unsuffixed(proto.number));
    match (proto.label, field.presence.is_option()) {
        (ProtoLabel::Single, false) => {
            let value = if field.boxed { quote!(&*self.#rust) } else { quote!(&self.#rust) };
            quote!(#protobuf::encode(#number, #value, buf))
        }
        (ProtoLabel::Single, true) => {
            let value = if field.boxed { quote!(self.#rust.as_deref()) } else { quote!(self.#rust.as_ref()) };
            quote!(#protobuf::encode_optional(#number, #value, buf))
        }
        (ProtoLabel::Repeated, false) => quote!(#protobuf::encode_repeated(#number, &self.#rust, buf)),
        (ProtoLabel::Repeated, true) => {
            quote!(#protobuf::encode_repeated(#number, self.#rust.as_deref().unwrap_or_default(), buf))
        }
        (ProtoLabel::Map, false) => quote!(#protobuf::encode_map(#number, &self.#rust, buf)),
        (ProtoLabel::Map, true) => quote! {
            if let Some(map) = &self.#rust {
                #protobuf::encode_map(#number, map, buf);
            }
        },
    }
}

/// Whether the field holds a string or a string enum.
fn is_text(scope: &Scope, field: &Field) -> bool {
    match field.ty.ty {
        Ty::String => true,
        Ty::Named(id) => matches!(scope.api.ty(id).kind, TypeKind::Enum(_)),
        _ => false,
    }
}

/// Reads one occurrence of the field. An optional text field reads an empty string as
/// unset: Go writes a plain string's empty value, which its JSON leaves out.
fn merge(protobuf: &TokenStream, field: &Field, proto: ProtoField, text: bool) -> TokenStream {
    let rust = format_ident!("{}", field.rust_name);
    if text && proto.label == ProtoLabel::Single && field.presence.is_option() && !field.boxed {
        return quote!(#protobuf::merge_text(&mut self.#rust, wire_type, buf, depth));
    }
    let target = match (field.presence.is_option(), field.boxed) {
        (false, false) => quote!(&mut self.#rust),
        (false, true) => quote!(&mut *self.#rust),
        (true, false) => quote!(self.#rust.get_or_insert_default()),
        (true, true) => quote!(&mut **self.#rust.get_or_insert_default()),
    };
    let function = match proto.label {
        ProtoLabel::Single => quote!(merge),
        ProtoLabel::Repeated => quote!(merge_repeated),
        ProtoLabel::Map => quote!(merge_map),
    };
    quote!(#protobuf::#function(#target, wire_type, buf, depth))
}

/// A string enum is its value; an unknown value survives as it does in JSON.
fn enum_impl(scope: &mut Scope, name: &proc_macro2::Ident) -> TokenStream {
    let protobuf = scope.import("kube_apigen::protobuf");
    quote! {
        impl #protobuf::Value for #name {
            const WIRE_TYPE: #protobuf::WireType = #protobuf::WireType::LengthDelimited;

            fn encode_value(&self, buf: &mut Vec<u8>) {
                #protobuf::encode_str(self.as_str(), buf);
            }

            fn merge_value(
                &mut self,
                wire_type: #protobuf::WireType,
                buf: &mut &[u8],
                _depth: #protobuf::Depth,
            ) -> Result<(), #protobuf::DecodeError> {
                *self = Self::from(#protobuf::read_string(wire_type, buf)?);
                Ok(())
            }
        }
    }
}
