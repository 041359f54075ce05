//! Schemas to types: the mapping of DESIGN §4.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Builder, Loc, description, naming};
use crate::error::{Result, escape_pointer_segment};
use crate::ir::{
    CelRule, EnumVariant, Field, FieldType, Gvk, ListType, Rules, StringEnum, Struct, SupportType, Ty, TypeDef, TypeId,
    TypeKind,
};

/// String formats Kubernetes accepts in schemas; all but the mapped ones stay `String`.
const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "password",
    "date",
    "duration",
    "datetime",
    "quantity",
];

impl Builder<'_> {
    /// Converts every named schema into its type, in name order.
    pub(super) fn convert_types(&mut self) -> Result<()> {
        let named: Vec<(String, super::SchemaSource)> =
            self.schemas.iter().map(|(name, source)| ((*name).to_owned(), *source)).collect();
        for (name, source) in named {
            let id = self.ids[name.as_str()];
            if matches!(self.api.types[id].kind, TypeKind::Support(_)) {
                continue;
            }
            let loc =
                Loc { doc: source.doc, pointer: format!("/components/schemas/{}", escape_pointer_segment(&name)) };
            let kind = self.type_kind(id, source.value, &loc)?;
            self.api.types[id].kind = kind;
        }
        Ok(())
    }

    fn type_kind(&mut self, id: TypeId, schema: &Value, loc: &Loc) -> Result<TypeKind> {
        if is_struct(schema) {
            Ok(TypeKind::Struct(self.structure(id, schema, loc)?))
        } else if let Some(values) = string_enum_values(schema) {
            Ok(TypeKind::Enum(string_enum(values)))
        } else {
            Ok(TypeKind::Alias(self.field_type(id, schema, loc, "")?))
        }
    }

    fn structure(&mut self, owner: TypeId, schema: &Value, loc: &Loc) -> Result<Struct> {
        let no_properties = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&no_properties);
        let required = self.required(schema, properties, loc)?;
        let structural = self.is_structural(loc);
        // Properties already spelled as their Rust name keep it (`foo_bar` stays `foo_bar`
        // even beside `fooBar`), so adding a property never renames another.
        let mut taken: BTreeSet<String> =
            properties.keys().filter(|wire| naming::snake_case(wire) == **wire).cloned().collect();
        let mut fields = Vec::with_capacity(properties.len());
        for (wire_name, property) in properties {
            let property_loc = loc.join("properties").join(wire_name);
            let ty = self.field_type(owner, property, &property_loc, wire_name)?;
            let snake = naming::snake_case(wire_name);
            let rust_name = if snake == *wire_name { snake } else { naming::unique(snake, &mut taken, "_") };
            // A property that only refers to a type is documented by the type.
            let doc = description(property).or_else(|| match &ty.ty {
                Ty::Named(id) => self.api.types[*id].doc.clone(),
                _ => None,
            });
            fields.push(Field {
                wire_name: wire_name.clone(),
                rust_name,
                ty,
                required: !structural && required.contains(wire_name.as_str()),
                must_be_present: structural && required.contains(wire_name.as_str()),
                boxed: false,
                doc,
            });
        }
        let object_rules = self.rules(schema, loc)?;
        let unknown_fields = (schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)))
            .then(|| naming::unique("unknown_fields".to_owned(), &mut taken, "_"));
        Ok(Struct {
            fields,
            rules: object_rules.cel,
            min_properties: object_rules.min_properties,
            max_properties: object_rules.max_properties,
            gvks: self.gvks(schema, loc)?,
            unknown_fields,
            structural,
        })
    }

    fn required<'s>(&self, schema: &'s Value, properties: &Map<String, Value>, loc: &Loc) -> Result<BTreeSet<&'s str>> {
        let Some(required) = schema.get("required") else { return Ok(BTreeSet::new()) };
        let Some(required) = required.as_array() else {
            return Err(self.error(&loc.join("required"), "`required` must be a list of property names"));
        };
        let mut names = BTreeSet::new();
        for (index, name) in required.iter().enumerate() {
            let item_loc = loc.join("required").join(&index.to_string());
            let Some(name) = name.as_str() else {
                return Err(self.error(&item_loc, "`required` entries must be strings"));
            };
            if !properties.contains_key(name) {
                return Err(self.error(&item_loc, format!("required field `{name}` is not among the properties")));
            }
            names.insert(name);
        }
        Ok(names)
    }

    fn gvks(&self, schema: &Value, loc: &Loc) -> Result<Vec<Gvk>> {
        let Some(value) = schema.get("x-kubernetes-group-version-kind") else { return Ok(Vec::new()) };
        let entries = match value {
            Value::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        let loc = loc.join("x-kubernetes-group-version-kind");
        entries
            .into_iter()
            .map(|entry| {
                parse_gvk(entry).ok_or_else(|| self.error(&loc, "expected objects with group, version and kind"))
            })
            .collect()
    }

    /// The type at a schema position, with the rules stated there.
    pub(super) fn field_type(&mut self, owner: TypeId, schema: &Value, loc: &Loc, hint: &str) -> Result<FieldType> {
        let rules = self.rules(schema, loc)?;
        let ty = self.ty(owner, schema, loc, hint)?;
        Ok(FieldType { ty, rules })
    }

    fn ty(&mut self, owner: TypeId, schema: &Value, loc: &Loc, hint: &str) -> Result<Ty> {
        let Some(object) = schema.as_object() else {
            return Err(self.error(loc, "a schema must be an object"));
        };
        if let Some(reference) = object.get("$ref") {
            return Ok(Ty::Named(self.resolve_ref(reference, &loc.join("$ref"))?));
        }
        if let Some(all_of) = object.get("allOf") {
            return match all_of.as_array().map(Vec::as_slice) {
                Some([single]) => self.ty(owner, single, &loc.join("allOf").join("0"), hint),
                _ => Err(self
                    .error(&loc.join("allOf"), "only `allOf` with exactly one schema (a wrapped `$ref`) is supported")),
            };
        }
        if object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            return Ok(Ty::Support(SupportType::IntOrString));
        }
        let has_properties = object.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        if object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) && !has_properties {
            return Ok(Ty::Value);
        }
        let format = object.get("format").and_then(Value::as_str);
        let bad_format = |this: &Self, kind: &str| {
            Err(this.error(
                &loc.join("format"),
                format!("unsupported format {:?} for type {kind}", format.unwrap_or_default()),
            ))
        };
        match object.get("type") {
            None if has_properties => self.inline(owner, schema, loc, hint),
            None if object.contains_key("additionalProperties") => self.map(owner, schema, loc, hint),
            None => Ok(Ty::Value),
            Some(Value::String(kind)) => match kind.as_str() {
                "string" => match format {
                    Some("byte") => Ok(Ty::Support(SupportType::Bytes)),
                    Some("date-time") => Ok(Ty::Support(SupportType::Time)),
                    Some("int-or-string") => Ok(Ty::Support(SupportType::IntOrString)),
                    Some(other) if !STRING_FORMATS.contains(&other) => bad_format(self, kind),
                    _ if string_enum_values(schema).is_some() => self.inline(owner, schema, loc, hint),
                    _ => Ok(Ty::String),
                },
                "integer" => match format {
                    Some("int32") => Ok(Ty::I32),
                    None | Some("int64") => Ok(Ty::I64),
                    Some(_) => bad_format(self, kind),
                },
                "number" => match format {
                    None | Some("double" | "float" | "int32" | "int64") => Ok(Ty::F64),
                    Some(_) => bad_format(self, kind),
                },
                "boolean" => Ok(Ty::Bool),
                "array" => match object.get("items") {
                    Some(items) => {
                        let item = self.field_type(owner, items, &loc.join("items"), &format!("{hint}Item"))?;
                        Ok(Ty::Vec(Box::new(item)))
                    }
                    None => Ok(Ty::Vec(Box::new(FieldType::plain(Ty::Value)))),
                },
                "object" if has_properties => self.inline(owner, schema, loc, hint),
                "object" => self.map(owner, schema, loc, hint),
                other => Err(self.error(&loc.join("type"), format!("unsupported type {other:?}"))),
            },
            Some(other) => {
                Err(self.error(&loc.join("type"), format!("unsupported type {other}; expected a single type name")))
            }
        }
    }

    /// `additionalProperties` as a map; an object without it is free-form JSON.
    fn map(&mut self, owner: TypeId, schema: &Value, loc: &Loc, hint: &str) -> Result<Ty> {
        match schema.get("additionalProperties") {
            Some(Value::Bool(true)) => Ok(Ty::Map(Box::new(FieldType::plain(Ty::Value)))),
            Some(values @ Value::Object(_)) => {
                let value =
                    self.field_type(owner, values, &loc.join("additionalProperties"), &format!("{hint}Value"))?;
                Ok(Ty::Map(Box::new(value)))
            }
            _ => Ok(Ty::Value),
        }
    }

    /// A struct or enum declared inside another schema: named after its owner and position
    /// (`HorizontalPodAutoscalerBehaviorSelectPolicy`), living in the owner's file.
    fn inline(&mut self, owner: TypeId, schema: &Value, loc: &Loc, hint: &str) -> Result<Ty> {
        let owner_def = &self.api.types[owner];
        let module = owner_def.module.clone();
        let candidate = format!("{}{}", owner_def.name, naming::pascal_case(hint));
        let taken = self.type_names.entry(module.clone()).or_default();
        let name = naming::unique(candidate, taken, "");
        let id = self.api.types.len();
        self.api.types.push(TypeDef {
            schema_name: format!("{}#{}", self.api.types[owner].schema_name, loc.pointer),
            module,
            file: self.api.types[owner].file.clone(),
            name,
            doc: description(schema),
            source: loc.doc,
            kind: TypeKind::Alias(FieldType::plain(Ty::Value)),
        });
        let kind = self.type_kind(id, schema, loc)?;
        self.api.types[id].kind = kind;
        Ok(Ty::Named(id))
    }

    pub(super) fn resolve_ref(&self, reference: &Value, loc: &Loc) -> Result<TypeId> {
        let target = reference.as_str().unwrap_or_default();
        let name = target.strip_prefix("#/components/schemas/").map(|n| n.replace("~1", "/").replace("~0", "~"));
        match name.as_deref().and_then(|n| self.ids.get(n)) {
            Some(&id) => Ok(id),
            None if name.is_none() => Err(self.error(
                loc,
                format!("unsupported $ref {reference}: only `#/components/schemas/...` references are supported"),
            )),
            None => Err(self.error(loc, format!("unresolved $ref {reference}: no such schema in components.schemas"))),
        }
    }

    /// The validation keywords and Kubernetes extensions stated at one schema position.
    pub(super) fn rules(&self, schema: &Value, loc: &Loc) -> Result<Rules> {
        let count = |key: &str| -> Result<Option<u64>> {
            match schema.get(key) {
                None => Ok(None),
                Some(value) => value
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| self.error(&loc.join(key), format!("`{key}` must be a non-negative integer"))),
            }
        };
        let number = |key: &str| -> Result<Option<f64>> {
            match schema.get(key) {
                None | Some(Value::Bool(_)) => Ok(None),
                Some(value) => value
                    .as_f64()
                    .map(Some)
                    .ok_or_else(|| self.error(&loc.join(key), format!("`{key}` must be a number"))),
            }
        };
        let flag = |key: &str| schema.get(key) == Some(&Value::Bool(true));
        let mut rules = Rules {
            minimum: number("minimum")?,
            exclusive_minimum: flag("exclusiveMinimum"),
            maximum: number("maximum")?,
            exclusive_maximum: flag("exclusiveMaximum"),
            min_length: count("minLength")?,
            max_length: count("maxLength")?,
            pattern: self.pattern(schema, loc)?,
            min_items: count("minItems")?,
            max_items: count("maxItems")?,
            unique_items: flag("uniqueItems"),
            min_properties: count("minProperties")?,
            max_properties: count("maxProperties")?,
            format: schema.get("format").and_then(Value::as_str).map(str::to_owned),
            enum_values: Vec::new(),
            list_type: self.list_type(schema, loc)?,
            cel: self.cel_rules(schema, loc)?,
            nullable: flag("nullable"),
            default: if self.is_structural(loc) { schema.get("default").cloned() } else { None },
            structural: self.is_structural(loc),
        };
        // OpenAPI 3.1 states exclusive bounds as numbers rather than flags.
        if let Some(bound) = number("exclusiveMinimum")? {
            (rules.minimum, rules.exclusive_minimum) = (Some(bound), true);
        }
        if let Some(bound) = number("exclusiveMaximum")? {
            (rules.maximum, rules.exclusive_maximum) = (Some(bound), true);
        }
        if string_enum_values(schema).is_none()
            && let Some(values) = schema.get("enum").and_then(Value::as_array)
        {
            rules.enum_values = values.iter().filter(|v| !v.is_null()).cloned().collect();
        }
        Ok(rules)
    }

    /// Whether the schema at `loc` is a structural one (a custom resource's), whose
    /// defaults apply and whose rules read as the schema validator's; parameters of the
    /// same document are not.
    fn is_structural(&self, loc: &Loc) -> bool {
        self.docs[loc.doc].structural && loc.pointer.starts_with("/components/schemas/")
    }

    /// A `pattern`, which must compile as a regular expression.
    fn pattern(&self, schema: &Value, loc: &Loc) -> Result<Option<String>> {
        let Some(pattern) = schema.get("pattern") else { return Ok(None) };
        let loc = loc.join("pattern");
        let pattern = pattern.as_str().ok_or_else(|| self.error(&loc, "`pattern` must be a string"))?;
        if !self.compiled.patterns.borrow().contains(pattern) {
            regex::Regex::new(pattern).map_err(|e| self.error(&loc, format!("invalid pattern: {e}")))?;
            self.compiled.patterns.borrow_mut().insert(pattern.to_owned());
        }
        Ok(Some(pattern.to_owned()))
    }

    fn list_type(&self, schema: &Value, loc: &Loc) -> Result<Option<ListType>> {
        let Some(kind) = schema.get("x-kubernetes-list-type") else { return Ok(None) };
        let kind_loc = loc.join("x-kubernetes-list-type");
        match kind.as_str() {
            Some("atomic") => Ok(Some(ListType::Atomic)),
            Some("set") => Ok(Some(ListType::Set)),
            Some("map") => {
                let keys = schema
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .map(|keys| keys.iter().filter_map(Value::as_str).map(str::to_owned).collect::<Vec<_>>())
                    .filter(|keys| !keys.is_empty())
                    .ok_or_else(|| {
                        self.error(
                            &kind_loc,
                            "`x-kubernetes-list-type: map` needs a non-empty `x-kubernetes-list-map-keys`",
                        )
                    })?;
                Ok(Some(ListType::Map { keys }))
            }
            _ => Err(self.error(&kind_loc, format!("unsupported list type {kind}; expected atomic, set or map"))),
        }
    }

    fn cel_rules(&self, schema: &Value, loc: &Loc) -> Result<Vec<CelRule>> {
        let Some(entries) = schema.get("x-kubernetes-validations") else { return Ok(Vec::new()) };
        let loc = loc.join("x-kubernetes-validations");
        let entries = entries.as_array().ok_or_else(|| self.error(&loc, "must be a list of rules"))?;
        entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
                let entry_loc = loc.join(&index.to_string());
                let rule =
                    text("rule").ok_or_else(|| self.error(&entry_loc, "a validation rule needs a `rule` string"))?;
                let rule = CelRule {
                    rule,
                    message: text("message"),
                    message_expression: text("messageExpression"),
                    field_path: text("fieldPath"),
                    reason: text("reason"),
                };
                // Rules are compiled again at run time; rejecting them here means a broken
                // rule fails the generator, not every request.
                if !self.compiled.rules.borrow().contains(&rule) {
                    let spec = support::cel::CelRuleSpec {
                        rule: &rule.rule,
                        message: rule.message.as_deref(),
                        message_expression: rule.message_expression.as_deref(),
                        field_path: rule.field_path.as_deref(),
                        reason: rule.reason.as_deref(),
                    };
                    spec.compile().map_err(|e| self.error(&entry_loc, format!("invalid CEL rule: {e}")))?;
                    self.compiled.rules.borrow_mut().insert(rule.clone());
                }
                Ok(rule)
            })
            .collect()
    }
}

impl Builder<'_> {
    /// Rejects `default` values that do not fit their field's type: the generated model
    /// decodes them, and the API server refuses such a CRD as well.
    pub(super) fn check_defaults(&self) -> Result<()> {
        for ty in &self.api.types {
            let TypeKind::Struct(s) = &ty.kind else { continue };
            for field in &s.fields {
                let Some(value) = &field.ty.rules.default else { continue };
                if !fits(&self.api.types, &field.ty.ty, value) {
                    let schema = match ty.schema_name.split_once('#') {
                        Some((_, pointer)) => pointer.to_owned(),
                        None => format!("/components/schemas/{}", escape_pointer_segment(&ty.schema_name)),
                    };
                    let loc = Loc { doc: ty.source, pointer: schema }
                        .join("properties")
                        .join(&field.wire_name)
                        .join("default");
                    return Err(self.error(&loc, format!("default {value} does not fit the field's type")));
                }
            }
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
        (Ty::Support(support), _) => match support {
            SupportType::IntOrString => value.is_string() || value.is_i64(),
            SupportType::Quantity => value.is_string() || value.is_number(),
            SupportType::Time | SupportType::MicroTime | SupportType::Bytes => value.is_string(),
            _ => value.is_object(),
        },
        (Ty::Named(id), _) => match &types[*id].kind {
            TypeKind::Struct(s) => value.as_object().is_some_and(|object| {
                object.iter().all(|(key, v)| s.fields.iter().any(|f| f.wire_name == *key && fits(types, &f.ty.ty, v)))
            }),
            TypeKind::Enum(_) => value.is_string(),
            TypeKind::Alias(target) => fits(types, &target.ty, value),
            TypeKind::Support(support) => fits(types, &Ty::Support(*support), value),
        },
        _ => false,
    }
}

/// Objects with declared properties become structs.
fn is_struct(schema: &Value) -> bool {
    let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let typed_as_object = matches!(schema.get("type").and_then(Value::as_str), None | Some("object"));
    has_properties && typed_as_object && schema.get("$ref").is_none() && schema.get("allOf").is_none()
}

/// The values of a string enum, if the schema is one.
fn string_enum_values(schema: &Value) -> Option<Vec<String>> {
    if !matches!(schema.get("type").and_then(Value::as_str), None | Some("string")) {
        return None;
    }
    let values = schema.get("enum")?.as_array()?;
    let strings: Option<Vec<String>> =
        values.iter().filter(|v| !v.is_null()).map(|v| v.as_str().map(str::to_owned)).collect();
    strings.filter(|s| !s.is_empty())
}

fn string_enum(values: Vec<String>) -> StringEnum {
    let mut taken = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let variants: Vec<EnumVariant> = values
        .into_iter()
        .filter(|value| seen.insert(value.clone()))
        .map(|value| EnumVariant { rust_name: naming::unique(naming::pascal_case(&value), &mut taken, ""), value })
        .collect();
    let other_variant = ["Other", "OtherValue", "UnrecognizedValue"]
        .into_iter()
        .find(|name| !taken.contains(*name))
        .map(str::to_owned)
        .unwrap_or_else(|| naming::unique("Other".to_owned(), &mut taken, ""));
    StringEnum { variants, other_variant }
}

pub(super) fn parse_gvk(value: &Value) -> Option<Gvk> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Gvk { group: text("group")?, version: text("version")?, kind: text("kind")? })
}
