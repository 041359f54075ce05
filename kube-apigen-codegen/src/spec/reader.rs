//! Reading JSON into the typed spec, checking every value on the way.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use kube_apigen_core::schema::{ListType, MapType, PatchStrategy};
use serde_json::{Map, Number, Value};

use super::k8s::{self, Extensions, Gvk, Release, ResourceExtensions, RuleText, ValidationRule};
use super::operation::{Action, HttpMethod, Operation, Parameter, ParameterLocation, RequestBody};
use super::schema::{AdditionalProperties, Bound, Keywords, Reference, Schema, SchemaType};
use super::{DocId, Document, Loc, Origin};
use crate::error::{Error, Result};

/// String formats Kubernetes accepts in schemas, besides the ones with their own type
/// (`byte`, `date-time`, `int-or-string`).
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
    "byte",
    "date-time",
    "int-or-string",
];

const REFERENCE_PREFIX: &str = "#/components/schemas/";

pub struct Reader<'d> {
    documents: &'d [Document],
    /// The names of the schemas references may name.
    names: BTreeSet<&'d str>,
    /// Patterns known to compile (the built-in document's, and those compiled already),
    /// and CEL rules compiled already. Specs repeat them (a query parameter in every
    /// operation, each rule of a CRD serving one schema in several versions), and
    /// compiling is the costliest part of reading a schema.
    patterns: RefCell<HashSet<String>>,
    rules: RefCell<HashMap<RuleText, Arc<kube_apigen_validation::cel::CelRule>>>,
}

/// The members of a JSON object being read, at its location.
struct Members<'v, 'r> {
    map: &'v Map<String, Value>,
    loc: &'r Loc,
    reader: &'r Reader<'r>,
}

impl<'v> Members<'v, '_> {
    fn get(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key)
    }

    fn error(&self, key: &str, message: impl Into<String>) -> Error {
        self.reader.error(&self.loc.join(key), message)
    }

    fn string(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(self.error(key, format!("`{key}` must be a string"))),
        }
    }

    /// A boolean member; absent is false.
    fn flag(&self, key: &str) -> Result<bool> {
        Ok(self.optional_flag(key)?.unwrap_or(false))
    }

    fn optional_flag(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(_) => Err(self.error(key, format!("`{key}` must be true or false"))),
        }
    }

    fn count(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.error(key, format!("`{key}` must be a non-negative integer"))),
        }
    }

    fn number(&self, key: &str) -> Result<Option<Number>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(number)) => Ok(Some(number.clone())),
            Some(_) => Err(self.error(key, format!("`{key}` must be a number"))),
        }
    }

    /// A bound with its exclusive form: OpenAPI 3.0's flag beside it, or 3.1's number
    /// standing alone.
    fn bound(&self, key: &str, exclusive_key: &str) -> Result<Option<Bound>> {
        match self.get(exclusive_key) {
            Some(Value::Number(number)) => Ok(Some(Bound { value: number.clone(), exclusive: true })),
            _ => {
                let exclusive = self.flag(exclusive_key)?;
                Ok(self.number(key)?.map(|value| Bound { value, exclusive }))
            }
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(value) = self.get(key) else { return Ok(None) };
        let strings = value.as_array().and_then(|items| items.iter().map(|v| v.as_str().map(str::to_owned)).collect());
        strings.map(Some).ok_or_else(|| self.error(key, format!("`{key}` must be a list of strings")))
    }

    /// A member checked by a function of `k8s`, whose problems point inside the value.
    fn checked<T>(&self, key: &str, check: impl FnOnce(&Value) -> k8s::Checked<T>) -> Result<Option<T>> {
        let Some(value) = self.get(key) else { return Ok(None) };
        check(value).map(Some).map_err(|problem| {
            self.reader
                .error(&Loc::new(self.loc.doc, format!("{}/{key}{}", self.loc.pointer, problem.at)), problem.message)
        })
    }
}

impl<'d> Reader<'d> {
    pub fn new(documents: &'d [Document], names: BTreeSet<&'d str>) -> Reader<'d> {
        // Only specs with custom resources include the built-in document; the others need
        // not parse it for its patterns.
        let patterns = if documents.iter().any(|document| document.origin == Origin::BuiltIn) {
            super::crd::BUILTIN_PATTERNS.iter().map(|&pattern| pattern.to_owned()).collect()
        } else {
            HashSet::new()
        };
        Reader { documents, names, patterns: RefCell::new(patterns), rules: RefCell::default() }
    }

    fn error(&self, loc: &Loc, message: impl Into<String>) -> Error {
        self.documents[loc.doc.index()].raw.error(&loc.pointer, message)
    }

    fn members<'v, 'r>(&'r self, value: &'v Value, loc: &'r Loc, what: &str) -> Result<Members<'v, 'r>> {
        match value.as_object() {
            Some(map) => Ok(Members { map, loc, reader: self }),
            None => Err(self.error(loc, format!("{what} must be an object"))),
        }
    }

    /// A schema and everything nested in it.
    pub fn schema(&self, value: &Value, loc: &Loc) -> Result<Schema> {
        let m = self.members(value, loc, "a schema")?;
        let reference = match m.get("$ref") {
            Some(target) => Some(self.reference(target, &loc.join("$ref"))?),
            None => None,
        };
        let all_of = match m.get("allOf") {
            None => None,
            Some(Value::Array(parts)) if parts.len() == 1 => {
                Some(Box::new(self.schema(&parts[0], &loc.join("allOf").join("0"))?))
            }
            Some(_) => {
                return Err(m.error("allOf", "only `allOf` with exactly one schema (a wrapped `$ref`) is supported"));
            }
        };
        let ty = match m.get("type") {
            None => None,
            Some(Value::String(name)) => Some(match name.as_str() {
                "string" => SchemaType::String,
                "integer" => SchemaType::Integer,
                "number" => SchemaType::Number,
                "boolean" => SchemaType::Boolean,
                "array" => SchemaType::Array,
                "object" => SchemaType::Object,
                other => return Err(m.error("type", format!("unsupported type {other:?}"))),
            }),
            Some(other) => {
                return Err(m.error("type", format!("unsupported type {other}; expected a single type name")));
            }
        };
        let format = m.string("format")?;
        if let (Some(ty), Some(format)) = (ty, &format) {
            let known = match ty {
                SchemaType::String => STRING_FORMATS.contains(&format.as_str()),
                SchemaType::Integer => matches!(format.as_str(), "int32" | "int64"),
                SchemaType::Number => matches!(format.as_str(), "double" | "float" | "int32" | "int64"),
                _ => true,
            };
            if !known {
                let ty = m.get("type").and_then(Value::as_str).unwrap_or_default();
                return Err(m.error("format", format!("unsupported format {format:?} for type {ty}")));
            }
        }
        let mut properties = Vec::new();
        if let Some(value) = m.get("properties") {
            let loc = loc.join("properties");
            let declared = self.members(value, &loc, "`properties`")?;
            for (name, property) in declared.map {
                properties.push((name.clone(), self.schema(property, &loc.join(name))?));
            }
        }
        let required = self.required(&m, &properties)?;
        let items = match m.get("items") {
            Some(items) => Some(Box::new(self.schema(items, &loc.join("items"))?)),
            None => None,
        };
        let additional_properties = match m.get("additionalProperties") {
            None | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(AdditionalProperties::Any),
            Some(schema @ Value::Object(_)) => {
                Some(AdditionalProperties::Schema(Box::new(self.schema(schema, &loc.join("additionalProperties"))?)))
            }
            Some(_) => {
                return Err(m.error("additionalProperties", "`additionalProperties` must be a boolean or a schema"));
            }
        };
        let enum_values = match m.get("enum") {
            None => Vec::new(),
            Some(Value::Array(values)) => values.iter().filter(|v| !v.is_null()).cloned().collect(),
            Some(_) => return Err(m.error("enum", "`enum` must be a list")),
        };
        Ok(Schema {
            loc: loc.clone(),
            description: description(&m)?,
            reference,
            all_of,
            ty,
            format,
            properties,
            required,
            items,
            additional_properties,
            enum_values,
            default: m.get("default").cloned(),
            nullable: m.flag("nullable")?,
            keywords: self.keywords(&m)?,
            k8s: self.extensions(&m)?,
        })
    }

    fn reference(&self, target: &Value, loc: &Loc) -> Result<Reference> {
        let name = target.as_str().and_then(|t| t.strip_prefix(REFERENCE_PREFIX));
        let Some(name) = name.map(|n| n.replace("~1", "/").replace("~0", "~")) else {
            return Err(self.error(
                loc,
                format!("unsupported $ref {target}: only `#/components/schemas/...` references are supported"),
            ));
        };
        if !self.names.contains(name.as_str()) {
            return Err(self.error(loc, format!("unresolved $ref {target}: no such schema in components.schemas")));
        }
        Ok(Reference { name, loc: loc.clone() })
    }

    fn required(&self, m: &Members, properties: &[(String, Schema)]) -> Result<Vec<String>> {
        let Some(required) = m.get("required") else { return Ok(Vec::new()) };
        let Some(required) = required.as_array() else {
            return Err(m.error("required", "`required` must be a list of property names"));
        };
        let loc = m.loc.join("required");
        let mut names = Vec::new();
        for (index, name) in required.iter().enumerate() {
            let item_loc = loc.join(&index.to_string());
            let Some(name) = name.as_str() else {
                return Err(self.error(&item_loc, "`required` entries must be strings"));
            };
            if !properties.iter().any(|(property, _)| property == name) {
                return Err(self.error(&item_loc, format!("required field `{name}` is not among the properties")));
            }
            if !names.iter().any(|known| known == name) {
                names.push(name.to_owned());
            }
        }
        Ok(names)
    }

    fn keywords(&self, m: &Members) -> Result<Keywords> {
        Ok(Keywords {
            minimum: m.bound("minimum", "exclusiveMinimum")?,
            maximum: m.bound("maximum", "exclusiveMaximum")?,
            min_length: m.count("minLength")?,
            max_length: m.count("maxLength")?,
            pattern: self.pattern(m)?,
            min_items: m.count("minItems")?,
            max_items: m.count("maxItems")?,
            unique_items: m.flag("uniqueItems")?,
            min_properties: m.count("minProperties")?,
            max_properties: m.count("maxProperties")?,
        })
    }

    /// A `pattern`, which must compile as a Go regular expression.
    fn pattern(&self, m: &Members) -> Result<Option<String>> {
        let Some(pattern) = m.string("pattern")? else { return Ok(None) };
        if !self.patterns.borrow().contains(&pattern) {
            // As the API server reads it: Go's RE2 syntax.
            kube_apigen_validation::go::regexp::compile(&pattern)
                .map_err(|e| m.error("pattern", format!("invalid pattern: {e}")))?;
            self.patterns.borrow_mut().insert(pattern.clone());
        }
        Ok(Some(pattern))
    }

    fn extensions(&self, m: &Members) -> Result<Extensions> {
        // Checked to be a boolean; the models hold embedded resources as any other object.
        m.flag("x-kubernetes-embedded-resource")?;
        Ok(Extensions {
            int_or_string: m.flag("x-kubernetes-int-or-string")?,
            preserve_unknown_fields: m.flag("x-kubernetes-preserve-unknown-fields")?,
            list_type: self.list_type(m)?,
            map_type: match m.string("x-kubernetes-map-type")? {
                Some(name) => Some(MapType::parse(&name).map_err(|e| m.error("x-kubernetes-map-type", e))?),
                None => None,
            },
            patch_strategy: match m.string("x-kubernetes-patch-strategy")? {
                Some(list) => {
                    PatchStrategy::parse_list(&list).map_err(|e| m.error("x-kubernetes-patch-strategy", e))?
                }
                None => Vec::new(),
            },
            patch_merge_key: m.string("x-kubernetes-patch-merge-key")?,
            validations: self.validations(m)?,
            gvks: self.gvks(m)?,
            resource: self.resource_extensions(m)?,
        })
    }

    fn list_type(&self, m: &Members) -> Result<Option<ListType>> {
        const TYPE: &str = "x-kubernetes-list-type";
        const KEYS: &str = "x-kubernetes-list-map-keys";
        let keys = m.strings(KEYS)?;
        let Some(name) = m.string(TYPE)? else {
            return match keys {
                Some(_) => Err(m.error(KEYS, format!("`{KEYS}` needs `{TYPE}: map`"))),
                None => Ok(None),
            };
        };
        let list_type = ListType::parse(&name, keys.clone().unwrap_or_default()).map_err(|e| m.error(TYPE, e))?;
        match &list_type {
            ListType::Map(keys) if keys.is_empty() => {
                Err(m.error(TYPE, format!("`{TYPE}: map` needs a non-empty `{KEYS}`")))
            }
            ListType::Atomic | ListType::Set if keys.is_some() => {
                Err(m.error(KEYS, format!("`{KEYS}` needs `{TYPE}: map`")))
            }
            _ => Ok(Some(list_type)),
        }
    }

    fn validations(&self, m: &Members) -> Result<Vec<ValidationRule>> {
        let Some(entries) = m.get("x-kubernetes-validations") else { return Ok(Vec::new()) };
        let loc = m.loc.join("x-kubernetes-validations");
        let entries = entries.as_array().ok_or_else(|| self.error(&loc, "must be a list of rules"))?;
        let mut rules = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let entry_loc = loc.join(&index.to_string());
            let e = self.members(entry, &entry_loc, "a validation rule")?;
            let Some(rule) = e.string("rule")? else {
                return Err(self.error(&entry_loc, "a validation rule needs a `rule` string"));
            };
            let text = RuleText {
                rule,
                message: e.string("message")?,
                message_expression: e.string("messageExpression")?,
                field_path: e.string("fieldPath")?,
                reason: e.string("reason")?,
            };
            e.optional_flag("optionalOldSelf")?;
            let cached = self.rules.borrow().get(&text).cloned();
            let compiled = match cached {
                Some(compiled) => compiled,
                None => {
                    // Rules are compiled again at run time; rejecting them here means a
                    // broken rule fails the generator, not every request.
                    let compiled =
                        text.spec().compile().map_err(|e| self.error(&entry_loc, format!("invalid CEL rule: {e}")))?;
                    let compiled = Arc::new(compiled);
                    self.rules.borrow_mut().insert(text.clone(), compiled.clone());
                    compiled
                }
            };
            rules.push(ValidationRule { text, compiled });
        }
        Ok(rules)
    }

    fn gvks(&self, m: &Members) -> Result<Vec<Gvk>> {
        const KEY: &str = "x-kubernetes-group-version-kind";
        let Some(value) = m.get(KEY) else { return Ok(Vec::new()) };
        let entries = match value {
            Value::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        entries
            .into_iter()
            .map(|entry| gvk(entry).ok_or_else(|| m.error(KEY, "expected objects with group, version and kind")))
            .collect()
    }

    fn resource_extensions(&self, m: &Members) -> Result<ResourceExtensions> {
        Ok(ResourceExtensions {
            singular: m.checked("x-kubernetes-singular", |v| k8s::dns1035_label(v, "singular name"))?,
            short_names: m.checked("x-kubernetes-short-names", |v| k8s::dns1035_labels(v, "short name"))?,
            categories: m.checked("x-kubernetes-categories", |v| k8s::dns1035_labels(v, "category"))?,
            printer_columns: m.checked("x-kubernetes-printer-columns", k8s::printer_columns)?,
            scale: m.checked("x-kubernetes-scale", k8s::scale_paths)?,
            storage_version: m.optional_flag("x-kubernetes-storage-version")?,
            deprecation_warning: m.string("x-kubernetes-deprecation-warning")?,
            name_rule: m.checked("x-kubernetes-name-rule", k8s::name_rule)?,
        })
    }

    /// Every operation of a document's `paths`.
    pub fn operations(&self, document: &Value, doc: DocId) -> Result<Vec<Operation>> {
        let Some(paths) = document.get("paths") else { return Ok(Vec::new()) };
        let paths_loc = Loc::new(doc, "/paths");
        let paths = self.members(paths, &paths_loc, "`paths`")?;
        let mut operations = Vec::new();
        for (path, item) in paths.map {
            let item_loc = paths_loc.join(path);
            let item_members = self.members(item, &item_loc, "a path item")?;
            let shared = self.parameters(&item_members)?;
            for &(method_name, method) in HttpMethod::ALL {
                let Some(operation) = item_members.get(method_name) else { continue };
                let loc = item_loc.join(method_name);
                let o = self.members(operation, &loc, "an operation")?;
                let mut parameters = shared.clone();
                for parameter in self.parameters(&o)? {
                    // Operation-level parameters override path-level ones of the same name.
                    parameters.retain(|p: &Parameter| !(p.name == parameter.name && p.location == parameter.location));
                    parameters.push(parameter);
                }
                operations.push(Operation {
                    method,
                    path: path.clone(),
                    action: o.checked("x-kubernetes-action", action)?,
                    gvk: match o.get("x-kubernetes-group-version-kind") {
                        Some(value) => Some(gvk(value).ok_or_else(|| {
                            o.error(
                                "x-kubernetes-group-version-kind",
                                "expected an object with group, version and kind",
                            )
                        })?),
                        None => None,
                    },
                    parameters,
                    request_body: self.request_body(&o)?,
                    responses: self.responses(&o)?,
                    description: description(&o)?,
                    loc,
                });
            }
        }
        Ok(operations)
    }

    fn parameters(&self, m: &Members) -> Result<Vec<Parameter>> {
        let Some(list) = m.get("parameters") else { return Ok(Vec::new()) };
        let loc = m.loc.join("parameters");
        let list = list.as_array().ok_or_else(|| self.error(&loc, "must be a list"))?;
        let mut parameters = Vec::with_capacity(list.len());
        let no_schema = Value::Object(Map::new());
        for (index, parameter) in list.iter().enumerate() {
            let loc = loc.join(&index.to_string());
            let p = self.members(parameter, &loc, "a parameter")?;
            let location = match p.get("in").and_then(Value::as_str) {
                Some("path") => Some(ParameterLocation::Path),
                Some("query") => Some(ParameterLocation::Query),
                Some("header") => None,
                _ => return Err(self.error(&loc, "a parameter needs `in` (path, query or header)")),
            };
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                return Err(self.error(&loc, "a parameter needs a `name`"));
            };
            let schema = self.schema(p.get("schema").unwrap_or(&no_schema), &loc.join("schema"))?;
            // Checked to be a boolean; whether a parameter is required follows from where it is.
            p.flag("required")?;
            let Some(location) = location else { continue };
            parameters.push(Parameter { name: name.to_owned(), location, schema, description: description(&p)? });
        }
        Ok(parameters)
    }

    fn request_body(&self, o: &Members) -> Result<Option<RequestBody>> {
        let Some(body) = o.get("requestBody") else { return Ok(None) };
        let loc = o.loc.join("requestBody");
        let b = self.members(body, &loc, "`requestBody`")?;
        let (content_types, schema) = self.content(&b)?;
        Ok(Some(RequestBody { content_types, schema }))
    }

    /// The media types of `content` and the schema of the first that has one.
    fn content(&self, m: &Members) -> Result<(Vec<String>, Option<Schema>)> {
        let Some(content) = m.get("content") else { return Ok((Vec::new(), None)) };
        let loc = m.loc.join("content");
        let c = self.members(content, &loc, "`content`")?;
        let mut schema = None;
        for (media_type, media) in c.map {
            let media_loc = loc.join(media_type);
            let media = self.members(media, &media_loc, "a media type")?;
            if let (None, Some(value)) = (&schema, media.get("schema")) {
                schema = Some(self.schema(value, &media_loc.join("schema"))?);
            }
        }
        Ok((c.map.keys().cloned().collect(), schema))
    }

    fn responses(&self, o: &Members) -> Result<BTreeMap<u16, Option<Schema>>> {
        let mut responses = BTreeMap::new();
        let Some(list) = o.get("responses") else { return Ok(responses) };
        let loc = o.loc.join("responses");
        let r = self.members(list, &loc, "`responses`")?;
        for (code, response) in r.map {
            let Ok(code) = code.parse::<u16>() else { continue };
            let response_loc = loc.join(&code.to_string());
            let response = self.members(response, &response_loc, "a response")?;
            // The JSON body's schema, else the first media type's.
            let schema = match response.get("content").and_then(|c| c.get("application/json")) {
                Some(json) => match json.get("schema") {
                    Some(schema) => Some(
                        self.schema(schema, &response_loc.join("content").join("application/json").join("schema"))?,
                    ),
                    None => None,
                },
                None => self.content(&response)?.1,
            };
            responses.insert(code, schema);
        }
        Ok(responses)
    }

    /// `info.x-kubernetes-release`.
    pub fn release(&self, document: &Value, doc: DocId) -> Result<Option<Release>> {
        let Some(info) = document.get("info") else { return Ok(None) };
        let loc = Loc::new(doc, "/info");
        let i = self.members(info, &loc, "`info`")?;
        i.checked("x-kubernetes-release", k8s::release)
    }
}

fn description(m: &Members) -> Result<Option<String>> {
    Ok(m.string("description")?.map(|d| d.trim().to_owned()).filter(|d| !d.is_empty()))
}

fn gvk(value: &Value) -> Option<Gvk> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Gvk { group: text("group")?, version: text("version")?, kind: text("kind")? })
}

fn action(value: &Value) -> k8s::Checked<Action> {
    let name = value.as_str().ok_or_else(|| k8s::Problem::here("`x-kubernetes-action` must be a string"))?;
    Action::ALL.iter().find(|(known, _)| *known == name).map(|(_, action)| *action).ok_or_else(|| {
        let known: Vec<&str> = Action::ALL.iter().map(|(known, _)| *known).collect();
        k8s::Problem::here(format!("unknown action {name:?}; expected one of {}", known.join(", ")))
    })
}
