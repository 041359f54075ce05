//! Paths and operations, and the resources they reveal.

use std::collections::BTreeMap;

use serde_json::Value;

use super::handlers::parse_path;
use super::{Builder, Loc, description, types::parse_gvk};
use crate::error::Result;
use crate::ir::{Body, FieldType, Gvk, Operation, Parameter, ParameterLocation, Resource, Ty, TypeKind};

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch", "trace"];

impl Builder<'_> {
    pub(super) fn collect_operations(&mut self, doc: usize) -> Result<()> {
        let Some(paths) = self.docs[doc].value.get("paths") else { return Ok(()) };
        let root = Loc { doc, pointer: String::new() };
        let Some(paths) = paths.as_object() else {
            return Err(self.error(&root.join("paths"), "must be an object"));
        };
        for (path, item) in paths {
            let item_loc = root.join("paths").join(path);
            let shared = self.parameters(item, &item_loc)?;
            for &method in METHODS {
                let Some(operation) = item.get(method) else { continue };
                let loc = item_loc.join(method);
                let mut parameters = shared.clone();
                for parameter in self.parameters(operation, &loc)? {
                    // Operation-level parameters override path-level ones of the same name.
                    parameters.retain(|p: &Parameter| !(p.name == parameter.name && p.location == parameter.location));
                    parameters.push(parameter);
                }
                let text = |key: &str| operation.get(key).and_then(Value::as_str).map(str::to_owned);
                self.api.operations.push(Operation {
                    id: text("operationId").unwrap_or_else(|| format!("{method} {path}")),
                    method: method.to_owned(),
                    path: path.clone(),
                    action: text("x-kubernetes-action"),
                    gvk: operation.get("x-kubernetes-group-version-kind").and_then(parse_gvk),
                    parameters,
                    request_body: self.request_body(operation, &loc)?,
                    responses: self.responses(operation, &loc)?,
                    doc: description(operation),
                    source: doc,
                });
            }
        }
        Ok(())
    }

    fn parameters(&self, item: &Value, loc: &Loc) -> Result<Vec<Parameter>> {
        let Some(list) = item.get("parameters") else { return Ok(Vec::new()) };
        let loc = loc.join("parameters");
        let list = list.as_array().ok_or_else(|| self.error(&loc, "must be a list"))?;
        let mut parameters = Vec::with_capacity(list.len());
        let no_schema = Value::Object(Default::default());
        for (index, parameter) in list.iter().enumerate() {
            let loc = loc.join(&index.to_string());
            let name = parameter.get("name").and_then(Value::as_str);
            let location = match parameter.get("in").and_then(Value::as_str) {
                Some("path") => ParameterLocation::Path,
                Some("query") => ParameterLocation::Query,
                Some("header") => ParameterLocation::Header,
                _ => return Err(self.error(&loc, "a parameter needs `in` (path, query or header)")),
            };
            let Some(name) = name else { return Err(self.error(&loc, "a parameter needs a `name`")) };
            let schema = parameter.get("schema").unwrap_or(&no_schema);
            let ty = self.parameter_type(schema, &loc.join("schema"))?;
            parameters.push(Parameter {
                name: name.to_owned(),
                location,
                required: parameter.get("required") == Some(&Value::Bool(true)),
                ty,
                doc: description(parameter),
            });
        }
        Ok(parameters)
    }

    /// Parameters are scalars or lists of scalars; string enums stay strings whose allowed
    /// values are a validation rule.
    fn parameter_type(&self, schema: &Value, loc: &Loc) -> Result<FieldType> {
        let mut rules = self.rules(schema, loc)?;
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            rules.enum_values = values.iter().filter(|v| !v.is_null()).cloned().collect();
        }
        let scalar = |schema: &Value| match (
            schema.get("type").and_then(Value::as_str),
            schema.get("format").and_then(Value::as_str),
        ) {
            (Some("integer"), Some("int32")) => Ty::I32,
            (Some("integer"), _) => Ty::I64,
            (Some("number"), _) => Ty::F64,
            (Some("boolean"), _) => Ty::Bool,
            _ => Ty::String,
        };
        let ty = match (schema.get("type").and_then(Value::as_str), schema.get("items")) {
            (Some("array"), Some(items)) => Ty::Vec(Box::new(FieldType::plain(scalar(items)))),
            (Some("array"), None) => Ty::Vec(Box::new(FieldType::plain(Ty::String))),
            _ => scalar(schema),
        };
        Ok(FieldType { ty, rules })
    }

    fn request_body(&self, operation: &Value, loc: &Loc) -> Result<Option<Body>> {
        let Some(body) = operation.get("requestBody") else { return Ok(None) };
        let loc = loc.join("requestBody");
        let content = body.get("content").and_then(Value::as_object);
        let content_types: Vec<String> = content.map(|c| c.keys().cloned().collect()).unwrap_or_default();
        let schema = content.and_then(|c| c.values().find_map(|media| media.get("schema")));
        let ty = match schema {
            Some(schema) => self.body_type(schema, &loc.join("content"))?,
            None => None,
        };
        Ok(Some(Body { content_types, ty, required: body.get("required") == Some(&Value::Bool(true)) }))
    }

    fn responses(&self, operation: &Value, loc: &Loc) -> Result<BTreeMap<u16, Option<Ty>>> {
        let mut responses = BTreeMap::new();
        let Some(list) = operation.get("responses").and_then(Value::as_object) else { return Ok(responses) };
        for (code, response) in list {
            let Ok(code) = code.parse::<u16>() else { continue }; // `default` responses carry no status
            let loc = loc.join("responses").join(&code.to_string());
            let content = response.get("content").and_then(Value::as_object);
            let schema = content
                .and_then(|c| c.get("application/json").or_else(|| c.values().next()))
                .and_then(|m| m.get("schema"));
            let ty = match schema {
                Some(schema) => self.body_type(schema, &loc)?,
                None => None,
            };
            responses.insert(code, ty);
        }
        Ok(responses)
    }

    /// Bodies refer to named schemas; anything inline is treated as free-form JSON.
    fn body_type(&self, schema: &Value, loc: &Loc) -> Result<Option<Ty>> {
        match schema.get("$ref") {
            Some(reference) => Ok(Some(Ty::Named(self.resolve_ref(reference, loc)?))),
            None => Ok(Some(Ty::Value)),
        }
    }

    /// Finds the resources: kinds served at a collection path (list, create or delete
    /// collection), with the subresources found under their item paths.
    pub(super) fn collect_resources(&mut self) {
        let mut found: BTreeMap<Gvk, Resource> = BTreeMap::new();
        let mut subresources: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
        for operation in &self.api.operations {
            let Some(path) = parse_path(&operation.path).filter(|p| !p.watch) else { continue };
            if path.item {
                if let Some(subresource) = path.subresource {
                    let names = subresources.entry((path.group, path.plural)).or_default();
                    if !names.iter().any(|n| n == subresource) {
                        names.push(subresource.to_owned());
                    }
                }
                continue;
            }
            let collection_action = matches!(operation.action.as_deref(), Some("list" | "post" | "deletecollection"));
            let Some(gvk) = &operation.gvk else { continue };
            let Some(type_id) = self.resource_type(gvk).filter(|_| collection_action) else { continue };
            let resource = found.entry(gvk.clone()).or_insert_with(|| Resource {
                type_id,
                gvk: gvk.clone(),
                plural: path.plural.to_owned(),
                namespaced: false,
                list_kind: format!("{}List", gvk.kind),
                subresources: Vec::new(),
                name_rule: Default::default(),
            });
            // The list across namespaces has no {namespace}; any path with one decides.
            resource.namespaced |= path.namespaced;
        }
        for resource in found.values_mut() {
            if let Some(names) = subresources.get(&(resource.gvk.group.as_str(), resource.plural.as_str())) {
                resource.subresources = names.clone();
                resource.subresources.sort();
            }
        }
        self.api.resources = found.into_values().collect();
    }

    /// The struct whose `x-kubernetes-group-version-kind` names exactly this kind.
    fn resource_type(&self, gvk: &Gvk) -> Option<usize> {
        self.api
            .types
            .iter()
            .position(|ty| matches!(&ty.kind, TypeKind::Struct(s) if s.gvks.len() == 1 && s.gvks[0] == *gvk))
    }
}
