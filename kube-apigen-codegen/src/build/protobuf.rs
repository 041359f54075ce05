//! Protobuf: which models have a codec, and the number of each field.
//!
//! A struct made from the schema `io.k8s.api.certificates.v1.CertificateSigningRequest`
//! is encoded as the message its `.proto` file names so (see `crate::spec::proto`). Every
//! property must be a field of the message of a type that fits, except `apiVersion` and
//! `kind`, which the envelope carries:
//! - a field whose type does not fit the property's (a `string` for an integer, a
//!   `repeated` field for a single value) is an error: the files disagree;
//! - a property the message lacks leaves the struct without a codec, with a note: the
//!   codec would drop it; so does a property whose type has no codec;
//! - a field the schema lacks is noted and skipped on decode, as unknown fields are.

use std::collections::{BTreeMap, BTreeSet};

use kube_apigen_core::protobuf::MESSAGE_LAYOUTS;

use super::{Builder, RUNTIME_SCHEMAS};
use crate::error::Result;
use crate::ir::{Origin, ProtoField, ProtoMessage, RuntimeType, Struct, Ty, TypeId, TypeKind};
use crate::spec::proto::{Label, ProtoField as MessageField, ProtoMessage as Message, ProtoType, Protos};

/// The properties the envelope (`runtime.Unknown.typeMeta`) carries for every object.
const TYPE_META: &[&str] = &["apiVersion", "kind"];

impl Builder<'_> {
    /// Matches every struct to its message, and decides which structs and enums get a codec.
    pub(super) fn match_protobuf(&mut self, protos: &Protos) -> Result<()> {
        check_runtime_layouts(protos)?;
        let mut messages = BTreeMap::new();
        let mut notes = Vec::new();
        for id in self.api.type_ids() {
            let (TypeKind::Struct(s), Origin::Schema(schema)) = (&self.ty(id).kind, &self.ty(id).origin) else {
                continue;
            };
            let Some(message) = protos.messages.get(schema) else { continue };
            if let Some(matched) = self.match_fields(schema, s, message, protos, &mut notes)? {
                messages.insert(id, matched);
            }
        }
        // A struct holding a struct without a codec has none either, down to a fixpoint.
        loop {
            let lost: Vec<(TypeId, TypeId)> = messages
                .keys()
                .filter_map(|&id| {
                    let TypeKind::Struct(s) = &self.ty(id).kind else { return None };
                    s.fields.iter().find_map(|f| self.struct_without_codec(&f.ty.ty, &messages)).map(|held| (id, held))
                })
                .collect();
            if lost.is_empty() {
                break;
            }
            for (id, held) in lost {
                messages.remove(&id);
                notes.push(format!(
                    "{} has no protobuf codec: it holds {}, which has none",
                    self.schema_name(id),
                    self.schema_name(held)
                ));
            }
        }
        let mut enums = BTreeSet::new();
        for id in messages.keys() {
            let TypeKind::Struct(s) = &self.ty(*id).kind else { continue };
            for field in &s.fields {
                self.collect_enums(&field.ty.ty, &mut enums);
            }
        }
        self.api.notes.extend(notes);
        self.api.protobuf.messages = messages;
        self.api.protobuf.enums = enums;
        Ok(())
    }

    /// The message's number and label for each field of `s`; `None` (with a note) when
    /// the message lacks a property.
    fn match_fields(
        &self,
        schema: &str,
        s: &Struct,
        message: &Message,
        protos: &Protos,
        notes: &mut Vec<String>,
    ) -> Result<Option<ProtoMessage>> {
        let mut fields = Vec::with_capacity(s.fields.len());
        let mut holders = BTreeSet::new();
        for field in &s.fields {
            let Some((owner, proto, embedded_in)) = find_field(s, message, protos, &field.wire_name) else {
                if TYPE_META.contains(&field.wire_name.as_str()) && !s.gvks.is_empty() {
                    fields.push(None);
                    continue;
                }
                notes.push(format!(
                    "{schema} has no protobuf codec: its property `{}` is not a field of message {}",
                    field.wire_name, message.name
                ));
                return Ok(None);
            };
            if !self.fits(&field.ty.ty, proto.label, &proto.ty, protos) {
                let shape = match proto.label {
                    Label::Single => proto.ty.to_string(),
                    Label::Repeated => format!("repeated {}", proto.ty),
                    Label::Map => format!("map<string, {}>", proto.ty),
                };
                return Err(protos.error(
                    proto.loc,
                    format!(
                        "field `{}` ({}) of message {} is {shape}, which does not fit property `{}` of {schema}: {}",
                        proto.name,
                        proto.number,
                        owner.name,
                        field.wire_name,
                        self.describe(&field.ty.ty)
                    ),
                ));
            }
            holders.extend(embedded_in);
            fields.push(Some(ProtoField { number: proto.number, label: proto.label, embedded_in }));
        }
        let is_property = |name: &str| s.fields.iter().any(|f| f.wire_name == name);
        for proto in &message.fields {
            let unknown = match embedded(proto, protos).filter(|_| holders.contains(&proto.number)) {
                Some(inner) => inner.fields.iter().filter(|f| !is_property(&f.name)).map(|f| (f, inner)).collect(),
                None if !is_property(&proto.name) => vec![(proto, message)],
                None => Vec::new(),
            };
            for (field, owner) in unknown {
                notes.push(format!(
                    "field `{}` ({}) of message {} is not a property of {schema}: decoding skips it",
                    field.name, field.number, owner.name
                ));
            }
        }
        Ok(Some(ProtoMessage { name: message.name.clone(), fields }))
    }

    /// Whether a model type fits a field of this label and type.
    fn fits(&self, ty: &Ty, label: Label, proto: &ProtoType, protos: &Protos) -> bool {
        match (label, self.unalias(ty)) {
            (Label::Single, ty) => self.fits_one(ty, proto, protos),
            (Label::Repeated, Ty::Vec(item)) => self.fits_one(self.unalias(&item.ty), proto, protos),
            (Label::Map, Ty::Map(value)) => self.fits_one(self.unalias(&value.ty), proto, protos),
            _ => false,
        }
    }

    /// Whether a model type fits one value of a field of type `proto`.
    fn fits_one(&self, ty: &Ty, proto: &ProtoType, protos: &Protos) -> bool {
        let message = |name: &str| match proto {
            ProtoType::Message(proto_name) => protos.by_proto_name(proto_name).filter(|_| proto_name == name),
            ProtoType::Scalar(_) => None,
        };
        match (ty, proto) {
            (Ty::String, ProtoType::Scalar("string"))
            | (Ty::I32, ProtoType::Scalar("int32"))
            | (Ty::I64, ProtoType::Scalar("int64"))
            | (Ty::Bool, ProtoType::Scalar("bool"))
            | (Ty::F64, ProtoType::Scalar("double"))
            | (Ty::Runtime(RuntimeType::Bytes), ProtoType::Scalar("bytes")) => true,
            (Ty::Named(id), ProtoType::Scalar("string")) => matches!(self.ty(*id).kind, TypeKind::Enum(_)),
            (Ty::Named(id), ProtoType::Message(name)) => {
                let Origin::Schema(schema) = &self.ty(*id).origin else { return false };
                protos.messages.get(schema).is_some_and(|m| m.name == *name)
            }
            (Ty::Runtime(runtime), ProtoType::Message(name)) => RUNTIME_SCHEMAS
                .iter()
                .filter(|(_, s)| s == runtime)
                .any(|(schema, _)| protos.messages.get(*schema).is_some_and(|m| m.name == *name)),
            // Free-form JSON is a message holding its JSON text (`RawExtension`, `FieldsV1`).
            (Ty::Value, ProtoType::Message(name)) => message(name).is_some_and(|m| {
                matches!(m.fields.as_slice(), [only] if only.number == 1 && only.label == Label::Single && only.ty == ProtoType::Scalar("bytes"))
            }),
            // A list that is one value is a message of its items (`Verbs`, `ExtraValue`).
            (Ty::Vec(item), ProtoType::Message(name)) => message(name).is_some_and(|m| {
                matches!(m.fields.as_slice(), [only] if only.number == 1 && only.label == Label::Repeated && self.fits_one(self.unalias(&item.ty), &only.ty, protos))
            }),
            _ => false,
        }
    }

    /// The type an alias stands for.
    fn unalias<'t>(&'t self, ty: &'t Ty) -> &'t Ty {
        match ty {
            Ty::Named(id) => match &self.ty(*id).kind {
                TypeKind::Alias(target) => self.unalias(&target.ty),
                _ => ty,
            },
            _ => ty,
        }
    }

    /// A struct without a codec held in a value of `ty`.
    fn struct_without_codec(&self, ty: &Ty, messages: &BTreeMap<TypeId, ProtoMessage>) -> Option<TypeId> {
        match self.unalias(ty) {
            Ty::Named(id) if matches!(self.ty(*id).kind, TypeKind::Struct(_)) && !messages.contains_key(id) => {
                Some(*id)
            }
            Ty::Vec(inner) | Ty::Map(inner) => self.struct_without_codec(&inner.ty, messages),
            _ => None,
        }
    }

    fn collect_enums(&self, ty: &Ty, enums: &mut BTreeSet<TypeId>) {
        match self.unalias(ty) {
            Ty::Named(id) if matches!(self.ty(*id).kind, TypeKind::Enum(_)) => {
                enums.insert(*id);
            }
            Ty::Vec(inner) | Ty::Map(inner) => self.collect_enums(&inner.ty, enums),
            _ => {}
        }
    }

    /// Marks the structs that are request or response bodies of some operation.
    pub(super) fn collect_payloads(&mut self) {
        let payloads: Vec<TypeId> = self
            .api
            .resources
            .iter()
            .flat_map(|r| &r.methods)
            .flat_map(|m| [m.body.as_ref(), m.response.as_ref()])
            .flatten()
            .filter_map(|ty| match ty {
                Ty::Named(id) if matches!(self.ty(*id).kind, TypeKind::Struct(_)) => Some(*id),
                _ => None,
            })
            .collect();
        self.api.protobuf.payloads.extend(payloads);
    }

    fn schema_name(&self, id: TypeId) -> String {
        match &self.ty(id).origin {
            Origin::Schema(name) => name.clone(),
            Origin::Inline { .. } => self.ty(id).name.clone(),
        }
    }

    /// A model type as errors name it.
    fn describe(&self, ty: &Ty) -> String {
        match self.unalias(ty) {
            Ty::Bool => "a boolean".to_owned(),
            Ty::I32 => "an int32 integer".to_owned(),
            Ty::I64 => "an int64 integer".to_owned(),
            Ty::F64 => "a number".to_owned(),
            Ty::String => "a string".to_owned(),
            Ty::Value => "free-form JSON".to_owned(),
            Ty::Runtime(runtime) => format!("a {}", runtime.name()),
            Ty::Named(id) => match self.ty(*id).kind {
                TypeKind::Enum(_) => "a string enum".to_owned(),
                _ => self.schema_name(*id),
            },
            Ty::Vec(item) => format!("a list of {}", self.describe(&item.ty)),
            Ty::Map(value) => format!("a map of {}", self.describe(&value.ty)),
        }
    }
}

/// The field of `message` that holds property `name` of `s`: its own field of that name,
/// or the field of that name of a Go struct embedded in it (a message field that is no
/// property, whose message has the field), with the number of the field holding it.
fn find_field<'m>(
    s: &Struct,
    message: &'m Message,
    protos: &'m Protos,
    name: &str,
) -> Option<(&'m Message, &'m MessageField, Option<u32>)> {
    if let Some(own) = message.fields.iter().find(|p| p.name == name) {
        return Some((message, own, None));
    }
    message.fields.iter().filter(|holder| !s.fields.iter().any(|f| f.wire_name == holder.name)).find_map(|holder| {
        let inner = embedded(holder, protos)?;
        inner.fields.iter().find(|p| p.name == name).map(|field| (inner, field, Some(holder.number)))
    })
}

/// The message a single message field holds, which an embedded Go struct would be.
fn embedded<'m>(field: &MessageField, protos: &'m Protos) -> Option<&'m Message> {
    match (&field.ty, field.label) {
        (ProtoType::Message(name), Label::Single) => protos.by_proto_name(name),
        _ => None,
    }
}

/// The messages of the runtime's types must be written as its codecs write them.
fn check_runtime_layouts(protos: &Protos) -> Result<()> {
    for layout in MESSAGE_LAYOUTS {
        let Some(message) = protos.by_proto_name(layout.name) else { continue };
        let by_number = |mut fields: Vec<String>| {
            fields.sort();
            fields.join("; ")
        };
        let actual = by_number(message.fields.iter().map(|f| format!("{} = {}: {}", f.number, f.name, f.ty)).collect());
        let expected =
            by_number(layout.fields.iter().map(|(name, number, ty)| format!("{number} = {name}: {ty}")).collect());
        if actual != expected {
            return Err(protos.error(
                message.loc,
                format!(
                    "message {} must have the fields the runtime encodes it with ({expected}), not ({actual})",
                    layout.name
                ),
            ));
        }
    }
    Ok(())
}
