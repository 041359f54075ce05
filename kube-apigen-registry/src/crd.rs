//! CustomResourceDefinitions (`apiextensions.k8s.io/v1`): what the API server does with
//! a definition itself, as the strategy of `customresourcedefinitions`.
//!
//! The model, its paths, discovery and OpenAPI document come from the generated crate
//! (`specs/apiextensions.k8s.io_v1.yaml` in this repository); this module adds, on JSON:
//!
//! - the defaults of `spec.names` (`singular`, `listKind`) and `spec.conversion`;
//! - the checks of kube-apiserver's `ValidateCustomResourceDefinition`: the name
//!   `<plural>.<group>`, the group, scope and names, unique version names and exactly one
//!   storage version, schemas structural in their types, CEL rules that compile, stored
//!   versions still listed, and the fields that cannot change;
//! - the status the API server's controllers write: `acceptedNames`, the conditions
//!   `NamesAccepted` and `Established`, and `storedVersions`. The API server sets them
//!   asynchronously, a moment after the write; here they are part of the write, so a
//!   client sees an established definition in the answer to its create.
//!
//! [`Store::install_crds`] installs definitions from YAML or JSON text, before or after the
//! server starts serving (tests do it first).
//!
//! Names are accepted as requested: a definition does not see the other definitions, so
//! two definitions claiming one kind in a group are not told apart.

use std::collections::BTreeSet;

use kube_apigen::Status;
use kube_apigen::cel::CelRuleSpec;
use kube_apigen::dynamic::{DynamicApi, Options, Request, Response, Verb};
use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen::meta;
use serde_json::{Map, Value, json};

use crate::Store;
use crate::object;
use crate::strategy::{Strategy, WriteContext};
use kube_apigen::http::Context;

/// The group of CustomResourceDefinitions.
pub const GROUP: &str = "apiextensions.k8s.io";
/// Their resource.
pub const PLURAL: &str = "customresourcedefinitions";

/// The strategy of `customresourcedefinitions.apiextensions.k8s.io`, which the server's
/// builder registers when the API serves the resource.
#[derive(Clone, Copy, Debug, Default)]
pub struct CustomResourceDefinitions;

impl Strategy for CustomResourceDefinitions {
    fn prepare_for_create(&self, context: &WriteContext<'_>, object: &mut Value) {
        set_defaults(object);
        let status = status(object, None, context.now);
        object["status"] = status;
    }

    fn prepare_for_update(&self, context: &WriteContext<'_>, new: &mut Value, old: &Value) {
        set_defaults(new);
        if context.subresource.is_none() {
            let status = status(new, old.get("status"), context.now);
            new["status"] = status;
        }
    }

    fn validate(&self, _: &WriteContext<'_>, object: &Value) -> ErrorList {
        let mut errors = ErrorList::new();
        validate_definition(object, &mut errors);
        errors
    }

    fn validate_update(&self, _: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        let mut errors = ErrorList::new();
        validate_definition(new, &mut errors);
        let spec = Path::ROOT.field("spec");
        let names = spec.field("names");
        let established = condition_is_true(old, "Established");
        let mut immutable = vec![(spec.field("group"), "/spec/group"), (names.field("plural"), "/spec/names/plural")];
        if established {
            immutable.push((spec.field("scope"), "/spec/scope"));
            immutable.push((names.field("kind"), "/spec/names/kind"));
        }
        for (path, pointer) in &immutable {
            let value = new.pointer(pointer).cloned().unwrap_or(Value::Null);
            if old.pointer(pointer).cloned().unwrap_or(Value::Null) != value {
                errors.push(FieldError::invalid(path, value, "field is immutable"));
            }
        }
        let stored = Path::ROOT.field("status");
        let stored = stored.field("storedVersions");
        let listed: BTreeSet<&str> = versions(new).filter_map(|v| text(v, "name")).collect();
        for (index, version) in strings(new.pointer("/status/storedVersions")).into_iter().enumerate() {
            if !listed.contains(version.as_str()) {
                errors.push(FieldError::invalid(&stored.index(index), version, "must appear in spec.versions"));
            }
        }
        errors
    }
}

/// The versions of a definition's `spec.versions`.
fn versions(object: &Value) -> impl Iterator<Item = &Value> {
    object.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten()
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
}

/// The API server's defaults of a v1 definition: the singular is the lowercased kind, the
/// list kind the kind with `List`, and conversion `None`.
fn set_defaults(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(names) = spec.get_mut("names").and_then(Value::as_object_mut) {
        let kind = names.get("kind").and_then(Value::as_str).unwrap_or("").to_owned();
        if !kind.is_empty() {
            names.entry("singular").or_insert_with(|| Value::String(kind.to_lowercase()));
            names.entry("listKind").or_insert_with(|| Value::String(format!("{kind}List")));
        }
    }
    spec.entry("conversion").or_insert_with(|| json!({ "strategy": "None" }));
}

/// The status the API server's controllers give a definition: its names accepted as
/// requested, established, and the storage version added to the stored versions.
fn status(object: &Value, old: Option<&Value>, now: &str) -> Value {
    let mut stored = strings(old.and_then(|status| status.get("storedVersions")));
    if let Some(storage) = versions(object).find(|v| v.get("storage") == Some(&Value::Bool(true)))
        && let Some(name) = text(storage, "name")
        && !stored.iter().any(|v| v == name)
    {
        stored.push(name.to_owned());
    }
    let old_conditions = old.and_then(|status| status.get("conditions")).and_then(Value::as_array);
    let condition = |type_: &str, reason: &str, message: &str| {
        object::condition(old_conditions, type_, "True", reason, message, now)
    };
    let mut status = Map::new();
    status.insert("acceptedNames".to_owned(), object.pointer("/spec/names").cloned().unwrap_or_else(|| json!({})));
    status.insert(
        "conditions".to_owned(),
        json!([
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ]),
    );
    status.insert("storedVersions".to_owned(), json!(stored));
    Value::Object(status)
}

fn condition_is_true(object: &Value, type_: &str) -> bool {
    object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| text(c, "type") == Some(type_) && text(c, "status") == Some("True"))
}

/// `ValidateCustomResourceDefinition` of kube-apiserver, on the fields the generated
/// model does not check: every error, in its order.
fn validate_definition(object: &Value, errors: &mut ErrorList) {
    let metadata = Path::ROOT.field("metadata");
    let spec_path = Path::ROOT.field("spec");
    let spec = object.get("spec").unwrap_or(&Value::Null);
    let group = text(spec, "group").unwrap_or("");
    let plural = spec.pointer("/names/plural").and_then(Value::as_str).unwrap_or("");
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    if name != format!("{plural}.{group}") {
        errors.push(FieldError::invalid(&metadata.field("name"), name, r#"must be spec.names.plural+"."+spec.group"#));
    }

    let group_path = spec_path.field("group");
    if group.is_empty() {
        errors.push(FieldError::required(&group_path, ""));
    } else if let subdomain @ [_, ..] = meta::is_dns1123_subdomain(group).as_slice() {
        errors.push(FieldError::invalid(&group_path, group, subdomain.join(",")));
    } else if group.split('.').count() < 2 {
        errors.push(FieldError::invalid(&group_path, group, "should be a domain with at least one dot"));
    }

    let scope_path = spec_path.field("scope");
    match text(spec, "scope").unwrap_or("") {
        "" => errors.push(FieldError::required(&scope_path, "")),
        "Cluster" | "Namespaced" => {}
        other => errors.push(FieldError::not_supported(&scope_path, other, &["Cluster", "Namespaced"])),
    }

    let versions_path = spec_path.field("versions");
    let entries: Vec<&Value> = versions(object).collect();
    let mut names = BTreeSet::new();
    let mut unique = true;
    let mut storage = 0;
    for (index, version) in entries.iter().enumerate() {
        let at = versions_path.index(index);
        let version_name = text(version, "name").unwrap_or("");
        unique &= names.insert(version_name);
        storage += usize::from(version.get("storage") == Some(&Value::Bool(true)));
        if let label @ [_, ..] = meta::is_dns1035_label(version_name).as_slice() {
            errors.push(FieldError::invalid(&at.field("name"), version_name, label.join(",")));
        }
        if let Some(root) = version.pointer("/schema/openAPIV3Schema") {
            let schema = at.field("schema");
            let schema = schema.field("openAPIV3Schema");
            validate_schema(root, &schema, Level::Root, errors);
        }
    }
    let listed = || Value::Array(entries.iter().map(|v| (*v).clone()).collect());
    if !unique {
        errors.push(FieldError::invalid(&versions_path, listed(), "must contain unique version names"));
    }
    if storage != 1 {
        errors.push(FieldError::invalid(
            &versions_path,
            listed(),
            "must have exactly one version marked as storage version",
        ));
    }

    let names_path = spec_path.field("names");
    let names = spec.get("names").unwrap_or(&Value::Null);
    for field in ["plural", "singular", "kind", "listKind"] {
        if text(names, field).unwrap_or("").is_empty() {
            errors.push(FieldError::required(&names_path.field(field), ""));
        }
    }
    validate_names(names, &names_path, errors);
    let accepted = Path::ROOT.field("status");
    let accepted = accepted.field("acceptedNames");
    validate_names(object.pointer("/status/acceptedNames").unwrap_or(&Value::Null), &accepted, errors);
}

/// `ValidateCustomResourceDefinitionNames`: the names as DNS-1035 labels (kinds in any
/// case), a list kind other than the kind.
fn validate_names(names: &Value, path: &Path<'_>, errors: &mut ErrorList) {
    for (field, mixed_case) in [("plural", false), ("singular", false), ("kind", true), ("listKind", true)] {
        let value = text(names, field).unwrap_or("");
        if value.is_empty() {
            continue;
        }
        let label = meta::is_dns1035_label(&if mixed_case { value.to_lowercase() } else { value.to_owned() });
        if !label.is_empty() {
            let detail = label.join(",");
            let detail =
                if mixed_case { format!("may have mixed case, but should otherwise match: {detail}") } else { detail };
            errors.push(FieldError::invalid(&path.field(field), value, detail));
        }
    }
    for list in ["shortNames", "categories"] {
        let list_path = path.field(list);
        for (index, entry) in strings(names.get(list)).into_iter().enumerate() {
            if let label @ [_, ..] = meta::is_dns1035_label(&entry).as_slice() {
                errors.push(FieldError::invalid(&list_path.index(index), entry.as_str(), label.join(",")));
            }
        }
    }
    let kind = text(names, "kind").unwrap_or("");
    if !kind.is_empty() && Some(kind) == text(names, "listKind") {
        errors.push(FieldError::invalid(&path.field("listKind"), kind, "kind and listKind may not be the same"));
    }
}

/// Where a schema sits, which names the rule its `type` breaks.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Field,
    Item,
}

/// The structural checks of a schema's types (every node says its `type`, unless it is
/// int-or-string or keeps unknown fields; an object at the root), `uniqueItems` (which
/// the API server forbids), and the CEL rules of `x-kubernetes-validations`, each of
/// which must compile.
fn validate_schema(schema: &Value, path: &Path<'_>, level: Level, errors: &mut ErrorList) {
    let flag = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    let type_ = text(schema, "type").unwrap_or("");
    let type_path = path.field("type");
    if type_.is_empty() && !flag("x-kubernetes-int-or-string") && !flag("x-kubernetes-preserve-unknown-fields") {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errors.push(FieldError::required(&type_path, detail));
    }
    if level == Level::Root && !type_.is_empty() && type_ != "object" {
        errors.push(FieldError::invalid(&type_path, type_, "must be object at the root"));
    }
    if flag("uniqueItems") {
        errors.push(FieldError::forbidden(
            &path.field("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    let rules_path = path.field("x-kubernetes-validations");
    for (index, rule) in
        schema.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten().enumerate()
    {
        let source = text(rule, "rule").unwrap_or("");
        let mut spec = CelRuleSpec::new(source);
        if let Some(message) = text(rule, "message") {
            spec = spec.with_message(message);
        }
        if let Some(expression) = text(rule, "messageExpression") {
            spec = spec.with_message_expression(expression);
        }
        if let Some(field_path) = text(rule, "fieldPath") {
            spec = spec.with_field_path(field_path);
        }
        if let Some(reason) = text(rule, "reason") {
            spec = spec.with_reason(reason);
        }
        if let Err(error) = spec.compile() {
            let at = rules_path.index(index);
            errors.push(FieldError::invalid(&at.field("rule"), rule.clone(), format!("compilation failed: {error}")));
        }
    }
    let properties = path.field("properties");
    for (key, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        validate_schema(property, &properties.key(key), Level::Field, errors);
    }
    if let Some(items @ Value::Object(_)) = schema.get("items") {
        validate_schema(items, &path.field("items"), Level::Item, errors);
    }
    if let Some(values @ Value::Object(_)) = schema.get("additionalProperties") {
        validate_schema(values, &path.field("additionalProperties"), Level::Field, errors);
    }
}

impl Store {
    /// Creates the CustomResourceDefinitions of `manifests`, YAML or JSON text with one
    /// or more documents (as kubectl reads a file, or kube-derive's `CustomResourceExt::crd()`
    /// written out), in their order; answers them as stored, established. Works whether the
    /// server is serving yet or not. The first definition refused ends the installation
    /// with the API server's answer to it (422 naming its problems, 409 when it exists);
    /// text that is no YAML is 400.
    pub async fn install_crds(&self, manifests: &str) -> Result<Vec<Value>, Status> {
        let documents = kube_apigen::http::yaml_documents(manifests)
            .map_err(|e| Status::bad_request(format!("error converting YAML to JSON: {e}")))?;
        let mut installed = Vec::with_capacity(documents.len());
        for definition in documents {
            installed.push(self.install_crd(definition).await?);
        }
        Ok(installed)
    }

    /// Creates one CustomResourceDefinition given as JSON, e.g.
    /// `serde_json::to_value(Widget::crd())`; see [`Store::install_crds`].
    pub async fn install_crd(&self, definition: Value) -> Result<Value, Status> {
        let resource = self
            .catalog()
            .groups
            .iter()
            .filter(|gv| gv.group == GROUP)
            .flat_map(|gv| gv.resources)
            .find(|resource| resource.plural == PLURAL)
            .ok_or_else(Status::route_not_found)?;
        let request = Request {
            verb: Verb::Create,
            resource,
            subresource: None,
            namespace: None,
            name: None,
            options: Options::default(),
            body: Some(definition),
            patch: None,
        };
        match self.handle(Context::default(), request).await? {
            Response::Object { body, .. } => Ok(body),
            Response::Watch(_) => Err(Status::internal_error("a create answered with a watch")),
        }
    }
}
