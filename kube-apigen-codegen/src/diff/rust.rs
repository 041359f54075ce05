//! The generated crate's side of a change: the Rust type and field at each schema
//! position, read from the IR, so a change can say what it does to the crate's public API.

use crate::ir::{self, Field, StringEnum, Struct, Ty, TypeDef, TypeId, TypeKind};

/// Where a schema position is in the generated types.
#[derive(Clone, Copy)]
pub(super) struct Here<'a> {
    api: &'a ir::Api,
    at: At<'a>,
}

#[derive(Clone, Copy)]
enum At<'a> {
    Type(TypeId),
    Ty(&'a Ty),
    /// Inside free-form JSON, or somewhere the generated types do not model.
    Nowhere,
}

/// A struct field, with the name of its struct.
#[derive(Clone, Copy)]
pub(super) struct FieldRef<'a> {
    pub owner: &'a str,
    pub field: &'a Field,
}

/// What the type at a position is, aliases followed.
enum Resolved<'a> {
    Struct(&'a TypeDef, &'a Struct),
    Enum(&'a TypeDef, &'a StringEnum),
    Vec(&'a Ty),
    Map(&'a Ty),
    Other,
}

impl<'a> Here<'a> {
    /// A resource's type.
    pub fn root(api: &'a ir::Api, id: TypeId) -> Here<'a> {
        Here { api, at: At::Type(id) }
    }

    fn at(&self, ty: &'a Ty) -> Here<'a> {
        Here { api: self.api, at: At::Ty(ty) }
    }

    fn nowhere(&self) -> Here<'a> {
        Here { api: self.api, at: At::Nowhere }
    }

    fn resolve(&self) -> Resolved<'a> {
        let mut at = self.at;
        loop {
            let id = match at {
                At::Type(id) => id,
                At::Ty(Ty::Named(id)) => *id,
                At::Ty(Ty::Vec(item)) => return Resolved::Vec(&item.ty),
                At::Ty(Ty::Map(value)) => return Resolved::Map(&value.ty),
                At::Ty(_) | At::Nowhere => return Resolved::Other,
            };
            let def = self.api.ty(id);
            match &def.kind {
                TypeKind::Struct(s) => return Resolved::Struct(def, s),
                TypeKind::Enum(e) => return Resolved::Enum(def, e),
                TypeKind::Alias(target) => at = At::Ty(&target.ty),
                TypeKind::Runtime(_) => return Resolved::Other,
            }
        }
    }

    /// The struct here, if the position is one.
    pub fn structure(&self) -> Option<(&'a TypeDef, &'a Struct)> {
        match self.resolve() {
            Resolved::Struct(def, s) => Some((def, s)),
            _ => None,
        }
    }

    /// The string enum here, if the position is one.
    pub fn string_enum(&self) -> Option<(&'a TypeDef, &'a StringEnum)> {
        match self.resolve() {
            Resolved::Enum(def, e) => Some((def, e)),
            _ => None,
        }
    }

    /// The field for property `wire_name` of the struct here, and its position.
    pub fn field(&self, wire_name: &str) -> (Option<FieldRef<'a>>, Here<'a>) {
        let Some((def, s)) = self.structure() else { return (None, self.nowhere()) };
        match s.fields.iter().find(|f| f.wire_name == wire_name) {
            Some(field) => (Some(FieldRef { owner: &def.name, field }), self.at(&field.ty.ty)),
            None => (None, self.nowhere()),
        }
    }

    /// The position of a list's items.
    pub fn items(&self) -> Here<'a> {
        match self.resolve() {
            Resolved::Vec(item) => self.at(item),
            _ => self.nowhere(),
        }
    }

    /// The position of a map's values.
    pub fn values(&self) -> Here<'a> {
        match self.resolve() {
            Resolved::Map(value) => self.at(value),
            _ => self.nowhere(),
        }
    }
}

impl FieldRef<'_> {
    /// `Owner::field`.
    pub fn name(&self) -> String {
        format!("{}::{}", self.owner, self.field.rust_name)
    }

    /// The field's Rust type as the generated code spells it (`Option<Vec<HPAScalingPolicy>>`).
    pub fn type_name(&self, api: &ir::Api) -> String {
        let mut name = type_name(api, &self.field.ty.ty);
        if self.field.boxed {
            name = format!("Box<{name}>");
        }
        if self.field.presence.is_option() {
            name = format!("Option<{name}>");
        }
        name
    }
}

/// A type as the generated code spells it.
pub(super) fn type_name(api: &ir::Api, ty: &Ty) -> String {
    match ty {
        Ty::Bool => "bool".to_owned(),
        Ty::I32 => "i32".to_owned(),
        Ty::I64 => "i64".to_owned(),
        Ty::F64 => "f64".to_owned(),
        Ty::String => "String".to_owned(),
        Ty::Value => "serde_json::Value".to_owned(),
        Ty::Runtime(runtime) => runtime.name().to_owned(),
        Ty::Named(id) => api.ty(*id).name.clone(),
        Ty::Vec(item) => format!("Vec<{}>", type_name(api, &item.ty)),
        Ty::Map(value) => format!("BTreeMap<String, {}>", type_name(api, &value.ty)),
    }
}
