//! Schemas to types: structs, string enums, aliases, and the checks at each position.

use std::collections::BTreeSet;

use super::Builder;
use crate::error::Result;
use crate::ir::{
    CelRule, Checks, EnumVariant, Field, FieldType, Origin, Presence, RuntimeType, StringEnum, Struct, Ty, TypeDef,
    TypeId, TypeKind, Wording,
};
use crate::naming;
use crate::spec::{AdditionalProperties, Schema, SchemaType};

impl Builder<'_> {
    /// Converts every named schema into its type, in name order.
    pub(super) fn convert_types(&mut self) -> Result<()> {
        let spec = self.spec;
        for (name, schema) in &spec.schemas {
            let id = self.ids[name.as_str()];
            if matches!(self.ty(id).kind, TypeKind::Runtime(_)) {
                continue;
            }
            let kind = self.type_kind(id, schema)?;
            self.api.types[id.index()].kind = kind;
        }
        Ok(())
    }

    fn type_kind(&mut self, id: TypeId, schema: &Schema) -> Result<TypeKind> {
        if is_struct(schema) {
            Ok(TypeKind::Struct(self.structure(id, schema)?))
        } else if let Some(values) = schema.string_enum() {
            Ok(TypeKind::Enum(string_enum(values)))
        } else {
            Ok(TypeKind::Alias(self.field_type(id, schema, "")?))
        }
    }

    fn structure(&mut self, owner: TypeId, schema: &Schema) -> Result<Struct> {
        let structural = self.wording(&schema.loc) == Wording::SchemaValidator;
        // Properties already spelled as their Rust name keep it (`foo_bar` stays `foo_bar`
        // even beside `fooBar`), so adding a property never renames another.
        let mut taken: BTreeSet<String> = schema
            .properties
            .iter()
            .map(|(wire, _)| wire)
            .filter(|wire| naming::snake_case(wire) == **wire)
            .cloned()
            .collect();
        let mut fields = Vec::with_capacity(schema.properties.len());
        for (wire_name, property) in &schema.properties {
            let ty = self.field_type(owner, property, wire_name)?;
            let snake = naming::snake_case(wire_name);
            let rust_name = if snake == *wire_name { snake } else { naming::unique(snake, &mut taken, "_") };
            // A property that only refers to a type is documented by the type.
            let doc = property.description.clone().or_else(|| match &ty.ty {
                Ty::Named(id) => self.ty(*id).doc.clone(),
                _ => None,
            });
            let presence = match (schema.required.contains(wire_name), structural) {
                (false, _) => Presence::Optional,
                (true, false) => Presence::Required,
                (true, true) => Presence::MustBePresent,
            };
            if let (true, Some(default)) = (structural, &property.default) {
                self.defaults.push((owner, fields.len(), property.loc.join("default"), default.clone()));
            }
            fields.push(Field {
                wire_name: wire_name.clone(),
                rust_name,
                ty,
                presence,
                boxed: false,
                doc,
                nullable: property.nullable,
                default: None,
            });
        }
        let unknown_fields =
            schema.k8s.preserve_unknown_fields.then(|| naming::unique("unknown_fields".to_owned(), &mut taken, "_"));
        Ok(Struct {
            fields,
            rules: cel_rules(schema),
            min_properties: schema.keywords.min_properties,
            max_properties: schema.keywords.max_properties,
            gvks: schema.k8s.gvks.clone(),
            unknown_fields,
            resource: None,
            object_meta: None,
        })
    }

    /// The type at a schema position, with the checks stated there.
    pub(super) fn field_type(&mut self, owner: TypeId, schema: &Schema, hint: &str) -> Result<FieldType> {
        let ty = self.schema_ty(owner, schema, hint)?;
        let mut checks = checks(schema);
        if ty == Ty::String && self.wording(&schema.loc) == Wording::SchemaValidator {
            checks.format.clone_from(&schema.format);
        }
        Ok(FieldType { ty, checks })
    }

    fn schema_ty(&mut self, owner: TypeId, schema: &Schema, hint: &str) -> Result<Ty> {
        if let Some(reference) = &schema.reference {
            return Ok(Ty::Named(self.ids[reference.name.as_str()]));
        }
        if let Some(inner) = &schema.all_of {
            return self.schema_ty(owner, inner, hint);
        }
        if schema.k8s.int_or_string {
            return Ok(Ty::Runtime(RuntimeType::IntOrString));
        }
        if schema.k8s.preserve_unknown_fields && !schema.has_properties() {
            return Ok(Ty::Value);
        }
        match schema.ty {
            None | Some(SchemaType::Object) if schema.has_properties() => self.inline(owner, schema, hint),
            None | Some(SchemaType::Object) => self.map(owner, schema, hint),
            // A custom resource's strings are stored as sent, whatever their format says.
            Some(SchemaType::String) if self.wording(&schema.loc) == Wording::SchemaValidator => {
                match schema.format.as_deref() {
                    Some("int-or-string") => Ok(Ty::Runtime(RuntimeType::IntOrString)),
                    _ if schema.string_enum().is_some() => self.inline(owner, schema, hint),
                    _ => Ok(Ty::String),
                }
            }
            Some(SchemaType::String) => match schema.format.as_deref() {
                Some("byte") => Ok(Ty::Runtime(RuntimeType::Bytes)),
                Some("date-time") => Ok(Ty::Runtime(RuntimeType::Time)),
                Some("int-or-string") => Ok(Ty::Runtime(RuntimeType::IntOrString)),
                _ if schema.string_enum().is_some() => self.inline(owner, schema, hint),
                _ => Ok(Ty::String),
            },
            Some(SchemaType::Integer) => match schema.format.as_deref() {
                Some("int32") => Ok(Ty::I32),
                _ => Ok(Ty::I64),
            },
            Some(SchemaType::Number) => Ok(Ty::F64),
            Some(SchemaType::Boolean) => Ok(Ty::Bool),
            Some(SchemaType::Array) => match &schema.items {
                Some(items) => Ok(Ty::Vec(Box::new(self.field_type(owner, items, &format!("{hint}Item"))?))),
                None => Ok(Ty::Vec(Box::new(FieldType::plain(Ty::Value)))),
            },
        }
    }

    /// `additionalProperties` as a map; an object without it is free-form JSON.
    fn map(&mut self, owner: TypeId, schema: &Schema, hint: &str) -> Result<Ty> {
        match &schema.additional_properties {
            Some(AdditionalProperties::Any) => Ok(Ty::Map(Box::new(FieldType::plain(Ty::Value)))),
            Some(AdditionalProperties::Schema(values)) => {
                Ok(Ty::Map(Box::new(self.field_type(owner, values, &format!("{hint}Value"))?)))
            }
            None => Ok(Ty::Value),
        }
    }

    /// A struct or enum declared inside another schema: named after its owner and
    /// position (`HorizontalPodAutoscalerBehaviorSelectPolicy`), living in the owner's file.
    fn inline(&mut self, owner: TypeId, schema: &Schema, hint: &str) -> Result<Ty> {
        let owner_def = self.ty(owner);
        let module = owner_def.module.clone();
        let doc = schema.description.clone().unwrap_or_else(|| format!("The `{hint}` of [`{}`].", owner_def.name));
        let candidate = naming::nested_type(&owner_def.name, &[hint]);
        let taken = self.type_names.entry(module.clone()).or_default();
        let name = naming::unique(candidate, taken, "");
        let id = TypeId::new(self.api.types.len());
        self.api.types.push(TypeDef {
            origin: Origin::Inline { owner, pointer: schema.loc.pointer.clone() },
            module,
            file: self.ty(owner).file.clone(),
            name,
            doc: Some(doc),
            source: schema.loc.doc.index(),
            wording: self.wording(&schema.loc),
            kind: TypeKind::Alias(FieldType::plain(Ty::Value)),
        });
        let kind = self.type_kind(id, schema)?;
        self.api.types[id.index()].kind = kind;
        Ok(Ty::Named(id))
    }
}

/// The checks a schema states at its position.
pub(super) fn checks(schema: &Schema) -> Checks {
    Checks {
        keywords: schema.keywords.clone(),
        format: None,
        enum_values: if schema.string_enum().is_none() { schema.enum_values.clone() } else { Vec::new() },
        list_type: schema.k8s.list_type.clone(),
        cel: cel_rules(schema),
    }
}

fn cel_rules(schema: &Schema) -> Vec<CelRule> {
    schema
        .k8s
        .validations
        .iter()
        .map(|rule| CelRule {
            text: rule.text.clone(),
            transition: rule.compiled.is_transition_rule(),
            compiled: rule.compiled.clone(),
        })
        .collect()
}

/// Objects with declared properties become structs.
fn is_struct(schema: &Schema) -> bool {
    schema.has_properties()
        && matches!(schema.ty, None | Some(SchemaType::Object))
        && schema.reference.is_none()
        && schema.all_of.is_none()
}

fn string_enum(values: Vec<&str>) -> StringEnum {
    let mut taken = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let variants: Vec<EnumVariant> = values
        .into_iter()
        .filter(|value| seen.insert(*value))
        .map(|value| EnumVariant {
            rust_name: naming::unique(naming::pascal_case(value), &mut taken, ""),
            value: value.to_owned(),
        })
        .collect();
    let other_variant = ["Other", "OtherValue", "UnrecognizedValue"]
        .into_iter()
        .find(|name| !taken.contains(*name))
        .map(str::to_owned)
        .unwrap_or_else(|| naming::unique("Other".to_owned(), &mut taken, ""));
    StringEnum { variants, other_variant }
}
