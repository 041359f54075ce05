//! Structural defaults: each `default` of a custom resource's field is checked to fit the
//! field's type (the generated model decodes it, and the API server refuses such a CRD
//! as well), and gets the functions the model applies it with.

use serde_json::Value;

use super::Builder;
use crate::error::Result;
use crate::ir::{RuntimeType, SpecDefault, Ty, TypeDef, TypeKind};
use crate::naming;

impl Builder<'_> {
    pub(super) fn check_defaults(&mut self) -> Result<()> {
        for (owner, index, loc, value) in std::mem::take(&mut self.defaults) {
            let TypeKind::Struct(s) = &self.ty(owner).kind else {
                unreachable!("defaults are recorded for struct fields")
            };
            let field = &s.fields[index];
            if !fits(&self.api.types, &field.ty.ty, &value) {
                return Err(self.error(&loc, format!("default {value} does not fit the field's type")));
            }
            // `null` takes the default too, unless the schema allows it: the API server
            // drops a `null` the schema does not allow before defaulting. Maps decode a
            // `null` as the empty map.
            let null_takes_default = !field.nullable && !matches!(field.ty.ty, Ty::Map(_));
            let default =
                SpecDefault { function: naming::default_function(&field.rust_name), null_takes_default, value };
            let TypeKind::Struct(s) = &mut self.api.types[owner.index()].kind else { unreachable!() };
            s.fields[index].default = Some(default);
        }
        Ok(())
    }
}

/// Whether a JSON value decodes as `ty` (shallowly for free-form JSON).
fn fits(types: &[TypeDef], ty: &Ty, value: &Value) -> bool {
    match (ty, value) {
        (_, Value::Null) | (Ty::Value, _) => true,
        (Ty::Bool, Value::Bool(_)) | (Ty::String, Value::String(_)) | (Ty::F64, Value::Number(_)) => true,
        (Ty::I32, Value::Number(n)) => n.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        (Ty::I64, Value::Number(n)) => n.as_i64().is_some(),
        (Ty::Vec(item), Value::Array(items)) => items.iter().all(|v| fits(types, &item.ty, v)),
        (Ty::Map(values), Value::Object(map)) => map.values().all(|v| fits(types, &values.ty, v)),
        (Ty::Runtime(runtime), _) => match runtime {
            RuntimeType::IntOrString => value.is_string() || value.is_i64(),
            RuntimeType::Quantity => value.is_string() || value.is_number(),
            RuntimeType::Time => value.as_str().is_some_and(|s| s.parse::<kube_apigen_core::Time>().is_ok()),
            RuntimeType::MicroTime => value.as_str().is_some_and(|s| s.parse::<kube_apigen_core::MicroTime>().is_ok()),
            RuntimeType::Bytes => serde_json::from_value::<kube_apigen_core::Bytes>(value.clone()).is_ok(),
            _ => value.is_object(),
        },
        (Ty::Named(id), _) => match &types[id.index()].kind {
            TypeKind::Struct(s) => value.as_object().is_some_and(|object| {
                object.iter().all(|(key, v)| s.fields.iter().any(|f| f.wire_name == *key && fits(types, &f.ty.ty, v)))
            }),
            TypeKind::Enum(_) => value.is_string(),
            TypeKind::Alias(target) => fits(types, &target.ty, value),
            TypeKind::Runtime(runtime) => fits(types, &Ty::Runtime(*runtime), value),
        },
        _ => false,
    }
}
