//! CustomResourceDefinition manifests as OpenAPI documents.
//!
//! For every served version of a custom resource the API server publishes an OpenAPI v3
//! document at `/openapi/v3/apis/<group>/<version>`: the resource and its list as schemas,
//! and the operations custom resources have (per scope, with the `status` and `scale`
//! subresources, without strategic merge patch). [`expand`] writes that document from the
//! manifest, so the rest of the pipeline treats custom resources like built-in ones.
//!
//! It differs from the server's document in two ways. Nested objects become named schemas
//! ([`names`]), which become named Rust types. The resource schema carries the manifest's
//! facts the pipeline needs as extensions: `x-kubernetes-short-names`, `-categories`,
//! `-singular`, `-printer-columns` (the `additionalPrinterColumns`), `-scale` (the scale
//! subresource's paths), `-storage-version` and `-deprecation-warning`.
//!
//! The shared types (`meta/v1`, `autoscaling/v1` Scale) and the query parameters come from
//! a built-in document, whose schemas serve only where no spec document defines them.

mod names;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::LazyLock;

use serde_json::{Map, Value, json};

use super::{Document, Origin, k8s};
use crate::error::{Error, Result, escape_pointer_segment};
use crate::load;
use crate::naming::pascal_case;

const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
const PATCH: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
const SCALE: &str = "io.k8s.api.autoscaling.v1.Scale";

/// Body types of creates, replaces and deletes.
const BODY_TYPES: &[&str] = &["application/json", "application/yaml"];
/// Patch types the API server accepts for custom resources: no strategic merge patch.
const PATCH_TYPES: &[&str] =
    &["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"];

const LIST_PARAMETERS: &[&str] = &[
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "shardSelector",
    "timeoutSeconds",
    "watch",
];
const WRITE_PARAMETERS: &[&str] = &["dryRun", "fieldManager", "fieldValidation"];
const PATCH_PARAMETERS: &[&str] = &["dryRun", "fieldManagerApply", "fieldValidation", "force"];
const DELETE_COLLECTION_PARAMETERS: &[&str] = &[
    "continue",
    "dryRun",
    "fieldSelector",
    "gracePeriodSeconds",
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "labelSelector",
    "limit",
    "orphanDependents",
    "propagationPolicy",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "shardSelector",
    "timeoutSeconds",
];
const DELETE_PARAMETERS: &[&str] = &[
    "dryRun",
    "gracePeriodSeconds",
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "orphanDependents",
    "propagationPolicy",
];

const BUILTIN_PATH: &str = "built-in/custom-resources.json";
/// The built-in document. It is JSON, not YAML like most CRD manifests, because every run
/// with custom resources parses it: JSON in 0.2 ms, the same document as YAML in 1.3 ms.
pub(crate) static BUILTIN: LazyLock<load::Document> = LazyLock::new(|| {
    let mut documents = load::parse(&PathBuf::from(BUILTIN_PATH), include_str!("builtin.json").to_owned())
        .expect("the built-in document parses");
    documents.remove(0)
});

/// The `pattern` keywords of the built-in document. The document is part of the generator
/// and a test compiles each of them, so reading specs that include it need not compile
/// them again.
pub static BUILTIN_PATTERNS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    fn collect(value: &'static Value, patterns: &mut Vec<&'static str>) {
        match value {
            Value::Object(members) => {
                for (key, member) in members {
                    match (key.as_str(), member) {
                        ("pattern", Value::String(pattern)) => patterns.push(pattern),
                        _ => collect(member, patterns),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| collect(item, patterns)),
            _ => {}
        }
    }
    let mut patterns = Vec::new();
    collect(&BUILTIN.value, &mut patterns);
    patterns
});

/// Whether the document is a CustomResourceDefinition manifest.
fn is_crd(document: &load::Document) -> bool {
    document.value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
}

/// The documents with every CRD manifest replaced by one OpenAPI document per served
/// version, and the built-in document of the shared types added (it fills gaps, and holds
/// the definitions of the meta types the runtime defines). Also the versions the
/// manifests list without serving them.
pub fn expand(documents: Vec<load::Document>) -> Result<(Vec<Document>, Vec<k8s::Gvk>)> {
    if !documents.iter().any(is_crd) {
        let mut documents: Vec<Document> =
            documents.into_iter().map(|raw| Document { raw, origin: Origin::OpenApi }).collect();
        documents.push(Document { raw: BUILTIN.clone(), origin: Origin::BuiltIn });
        return Ok((documents, Vec::new()));
    }
    let mut out = Vec::with_capacity(documents.len() + 1);
    // Nested type names are unique per group/version module, across manifests.
    let mut taken: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let crds: Vec<Crd> = documents.iter().filter(|d| is_crd(d)).map(Crd::read).collect::<Result<_>>()?;
    let unserved = crds
        .iter()
        .flat_map(|crd| {
            crd.unserved.iter().map(|version| k8s::Gvk {
                group: crd.group.clone(),
                version: version.clone(),
                kind: crd.kind.clone(),
            })
        })
        .collect();
    for crd in &crds {
        for version in &crd.versions {
            let names = taken.entry((crd.group.clone(), version.name.clone())).or_default();
            names.insert(crd.kind.clone());
            names.insert(crd.list_kind.clone());
        }
    }
    let mut crds = crds.into_iter();
    for document in documents {
        if !is_crd(&document) {
            out.push(Document { raw: document, origin: Origin::OpenApi });
            continue;
        }
        let crd = crds.next().expect("read above");
        for version in &crd.versions {
            let names = taken.get_mut(&(crd.group.clone(), version.name.clone())).expect("filled above");
            let (value, derived) = crd.openapi(version, names);
            let raw = load::Document {
                display_path: document.display_path.clone(),
                index_in_file: document.index_in_file,
                source: document.source.clone(),
                value,
                derived,
            };
            out.push(Document { raw, origin: Origin::CustomResource });
        }
    }
    out.push(Document { raw: BUILTIN.clone(), origin: Origin::BuiltIn });
    Ok((out, unserved))
}

/// The facts of a manifest the documents are written from.
struct Crd {
    group: String,
    kind: String,
    list_kind: String,
    plural: String,
    singular: String,
    short_names: Vec<Value>,
    categories: Vec<Value>,
    namespaced: bool,
    /// The served versions.
    versions: Vec<Version>,
    /// The names of the versions listed but not served.
    unserved: Vec<String>,
}

struct Version {
    name: String,
    /// Pointer of the version entry in the manifest.
    pointer: String,
    schema: Value,
    storage: bool,
    deprecation_warning: Option<String>,
    status: bool,
    scale: Option<Value>,
    printer_columns: Option<Value>,
}

impl Crd {
    /// Reads and checks a manifest; errors point into it.
    fn read(document: &load::Document) -> Result<Crd> {
        let value = &document.value;
        // A fact checked by a function of `k8s`, whose problems point inside the value.
        let checked = |pointer: &str, check: &dyn Fn(&Value) -> k8s::Checked<()>| -> Result<()> {
            match value.pointer(pointer) {
                Some(found) => check(found).map_err(|problem| located(document, pointer, problem)),
                None => Ok(()),
            }
        };
        let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).filter(|s| !s.is_empty());
        let required =
            |pointer: &str| text(pointer).ok_or_else(|| document.error(pointer, "required: a non-empty string"));
        let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        if api_version != CRD_API_VERSION {
            return Err(document.error(
                "/apiVersion",
                format!("{api_version:?} is not supported; CustomResourceDefinitions must be {CRD_API_VERSION}"),
            ));
        }
        let group = required("/spec/group")?.to_owned();
        let kind = required("/spec/names/kind")?.to_owned();
        let plural = required("/spec/names/plural")?.to_owned();
        checked("/spec/names/plural", &|v| k8s::dns1035_label(v, "plural name").map(drop))?;
        checked("/spec/names/singular", &|v| k8s::dns1035_label(v, "singular name").map(drop))?;
        checked("/spec/names/shortNames", &|v| k8s::dns1035_labels(v, "short name").map(drop))?;
        checked("/spec/names/categories", &|v| k8s::dns1035_labels(v, "category").map(drop))?;
        let expected_name = format!("{plural}.{group}");
        if text("/metadata/name") != Some(expected_name.as_str()) {
            return Err(
                document.error("/metadata/name", format!("must be {expected_name:?}, the plural and the group"))
            );
        }
        let namespaced = match text("/spec/scope") {
            Some("Namespaced") => true,
            Some("Cluster") => false,
            _ => return Err(document.error("/spec/scope", "must be Namespaced or Cluster")),
        };
        let list = |pointer: &str| value.pointer(pointer).and_then(Value::as_array).cloned().unwrap_or_default();
        let Some(entries) = value.pointer("/spec/versions").and_then(Value::as_array).filter(|v| !v.is_empty()) else {
            return Err(document.error("/spec/versions", "required: a non-empty list of versions"));
        };
        let mut versions = Vec::new();
        let mut unserved = Vec::new();
        let mut storage_versions = 0;
        for (index, entry) in entries.iter().enumerate() {
            let pointer = format!("/spec/versions/{index}");
            let name =
                text(&format!("{pointer}/name")).ok_or_else(|| document.error(&pointer, "a version needs a name"))?;
            let storage = entry.get("storage") == Some(&Value::Bool(true));
            storage_versions += usize::from(storage);
            if entry.get("served") != Some(&Value::Bool(true)) {
                unserved.push(name.to_owned());
                continue;
            }
            let schema_pointer = format!("{pointer}/schema/openAPIV3Schema");
            let Some(schema @ Value::Object(_)) = value.pointer(&schema_pointer) else {
                return Err(document.error(&pointer, "a served version needs schema.openAPIV3Schema"));
            };
            let deprecated = entry.get("deprecated") == Some(&Value::Bool(true));
            let subresources = entry.get("subresources");
            let scale = subresources.and_then(|s| s.get("scale")).cloned();
            checked(&format!("{pointer}/subresources/scale"), &|v| k8s::scale_paths(v).map(drop))?;
            checked(&format!("{pointer}/additionalPrinterColumns"), &|v| k8s::printer_columns(v).map(drop))?;
            versions.push(Version {
                name: name.to_owned(),
                pointer: pointer.clone(),
                schema: schema.clone(),
                storage,
                deprecation_warning: deprecated.then(|| {
                    entry
                        .get("deprecationWarning")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("{group}/{name} {kind} is deprecated"))
                }),
                status: subresources.and_then(|s| s.get("status")).is_some(),
                scale,
                printer_columns: entry.get("additionalPrinterColumns").cloned(),
            });
        }
        if storage_versions != 1 {
            return Err(document.error(
                "/spec/versions",
                format!("exactly one version must be the storage version; {storage_versions} are"),
            ));
        }
        Ok(Crd {
            list_kind: text("/spec/names/listKind").map_or_else(|| format!("{kind}List"), str::to_owned),
            singular: text("/spec/names/singular").map_or_else(|| kind.to_ascii_lowercase(), str::to_owned),
            short_names: list("/spec/names/shortNames"),
            categories: list("/spec/names/categories"),
            group,
            kind,
            plural,
            namespaced,
            versions,
            unserved,
        })
    }

    /// `com.coreos.monitoring.v1.`: the prefix of the schema names of a version, the group
    /// reversed as the API server names them.
    fn schema_prefix(&self, version: &Version) -> String {
        let reversed: Vec<&str> = self.group.rsplit('.').collect();
        format!("{}.{}.", reversed.join("."), version.name)
    }

    /// The OpenAPI document of one served version, and where its schemas came from.
    fn openapi(&self, version: &Version, taken: &mut BTreeSet<String>) -> (Value, Vec<(String, String)>) {
        let prefix = self.schema_prefix(version);
        let reference = |name: &str| format!("#/components/schemas/{prefix}{name}");
        let component =
            |name: &str| format!("/components/schemas/{}", escape_pointer_segment(&format!("{prefix}{name}")));
        let schema_pointer = format!("{}/schema/openAPIV3Schema", version.pointer);

        let mut root = version.schema.clone();
        let nested = names::extract(&self.kind, &mut root, taken, &reference);
        self.complete_resource_schema(version, &mut root);

        let mut schemas = Map::new();
        let mut derived = vec![(component(&self.kind), schema_pointer.clone())];
        schemas.insert(format!("{prefix}{}", self.kind), root);
        schemas.insert(format!("{prefix}{}", self.list_kind), self.list_schema(version, &reference(&self.kind)));
        for extracted in nested {
            derived.push((component(&extracted.name), format!("{schema_pointer}{}", extracted.pointer)));
            schemas.insert(format!("{prefix}{}", extracted.name), extracted.schema);
        }
        derived.push(("/paths".to_owned(), "/spec/names".to_owned()));
        let document = json!({
            "openapi": "3.0.0",
            "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
            "paths": self.paths(version, &reference(&self.kind), &reference(&self.list_kind)),
            "components": {"schemas": schemas},
        });
        (document, derived)
    }

    /// The resource schema as served: identity fields described, `metadata` the shared
    /// ObjectMeta, and the manifest's facts as extensions.
    fn complete_resource_schema(&self, version: &Version, root: &mut Value) {
        let Value::Object(schema) = root else { return };
        schema.insert("type".to_owned(), json!("object"));
        let properties = schema.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(properties) = properties {
            properties.insert("apiVersion".to_owned(), identity_property("apiVersion"));
            properties.insert("kind".to_owned(), identity_property("kind"));
            properties.insert(
                "metadata".to_owned(),
                json!({"allOf": [{"$ref": format!("#/components/schemas/{OBJECT_META}")}], "description": "Standard object metadata: name, namespace, labels, annotations and the fields the server maintains."}),
            );
        }
        let mut extensions = vec![
            (
                "x-kubernetes-group-version-kind",
                json!([{"group": self.group, "version": version.name, "kind": self.kind}]),
            ),
            ("x-kubernetes-singular", json!(self.singular)),
            ("x-kubernetes-storage-version", json!(version.storage)),
        ];
        if !self.short_names.is_empty() {
            extensions.push(("x-kubernetes-short-names", Value::Array(self.short_names.clone())));
        }
        if !self.categories.is_empty() {
            extensions.push(("x-kubernetes-categories", Value::Array(self.categories.clone())));
        }
        if let Some(columns) = &version.printer_columns {
            extensions.push(("x-kubernetes-printer-columns", columns.clone()));
        }
        if let Some(scale) = &version.scale {
            extensions.push(("x-kubernetes-scale", scale.clone()));
        }
        if let Some(warning) = &version.deprecation_warning {
            extensions.push(("x-kubernetes-deprecation-warning", json!(warning)));
        }
        for (key, value) in extensions {
            schema.insert(key.to_owned(), value);
        }
    }

    fn list_schema(&self, version: &Version, item: &str) -> Value {
        json!({
            "description": format!("A list of {}.", self.plural),
            "type": "object",
            "required": ["items"],
            "properties": {
                "apiVersion": identity_property("apiVersion"),
                "items": {"description": format!("The {}.", self.plural), "type": "array", "items": {"$ref": item}},
                "kind": identity_property("kind"),
                "metadata": {"allOf": [{"$ref": format!("#/components/schemas/{LIST_META}")}], "description": "Standard list metadata."},
            },
            "x-kubernetes-group-version-kind": [{"group": self.group, "version": version.name, "kind": self.list_kind}],
        })
    }

    /// The operations of the resource, as the API server publishes them.
    fn paths(&self, version: &Version, item: &str, list: &str) -> Value {
        let base = format!("/apis/{}/{}", self.group, version.name);
        let (collection, scope_parameters) = if self.namespaced {
            (format!("{base}/namespaces/{{namespace}}/{}", self.plural), vec![parameter("namespace")])
        } else {
            (format!("{base}/{}", self.plural), Vec::new())
        };
        let ops = Operations {
            crd: self,
            version,
            gvk: json!({"group": self.group, "version": version.name, "kind": self.kind}),
        };
        let with =
            |first: Vec<Value>| -> Value { Value::Array(first.into_iter().chain([parameter("pretty")]).collect()) };
        let mut name_and_scope = vec![self.name_parameter()];
        name_and_scope.extend(scope_parameters.iter().cloned());

        let mut paths = Map::new();
        paths.insert(
            collection.clone(),
            json!({
                "parameters": with(scope_parameters.clone()),
                "get": ops.operation("list", "", "list", LIST_PARAMETERS, None, &[(200, list)]),
                "post": ops.operation("create", "", "post", WRITE_PARAMETERS, Some((BODY_TYPES, item)), &[(200, item), (201, item), (202, item)]),
                "delete": ops.operation("deletecollection", "", "deletecollection", DELETE_COLLECTION_PARAMETERS, Some((BODY_TYPES, &format!("#/components/schemas/{DELETE_OPTIONS}"))), &[(200, &format!("#/components/schemas/{STATUS}"))]),
            }),
        );
        let object_path = format!("{collection}/{{name}}");
        paths.insert(object_path.clone(), self.object_operations(&ops, "", item, with(name_and_scope.clone()), true));
        if version.status {
            paths.insert(
                format!("{object_path}/status"),
                self.object_operations(&ops, "Status", item, with(name_and_scope.clone()), false),
            );
        }
        if version.scale.is_some() {
            let scale = format!("#/components/schemas/{SCALE}");
            let scale_ops =
                Operations { gvk: json!({"group": "autoscaling", "version": "v1", "kind": "Scale"}), ..ops };
            paths.insert(
                format!("{object_path}/scale"),
                self.object_operations(&scale_ops, "Scale", &scale, with(name_and_scope), false),
            );
        }
        if self.namespaced {
            paths.insert(
                format!("{base}/{}", self.plural),
                json!({
                    "parameters": with(Vec::new()),
                    "get": ops.operation("list", "ForAllNamespaces", "list", LIST_PARAMETERS, None, &[(200, list)]),
                }),
            );
        }
        Value::Object(paths)
    }

    /// Read, replace and patch (and delete, for the object itself) of an object path.
    fn object_operations(&self, ops: &Operations, suffix: &str, item: &str, parameters: Value, delete: bool) -> Value {
        let mut path = json!({
            "parameters": parameters,
            "get": ops.operation("read", suffix, "get", &[], None, &[(200, item)]),
            "put": ops.operation("replace", suffix, "put", WRITE_PARAMETERS, Some((BODY_TYPES, item)), &[(200, item), (201, item)]),
            "patch": ops.operation("patch", suffix, "patch", PATCH_PARAMETERS, Some((PATCH_TYPES, &format!("#/components/schemas/{PATCH}"))), &[(200, item), (201, item)]),
        });
        if delete {
            let status = format!("#/components/schemas/{STATUS}");
            path["delete"] = ops.operation(
                "delete",
                suffix,
                "delete",
                DELETE_PARAMETERS,
                Some((BODY_TYPES, &format!("#/components/schemas/{DELETE_OPTIONS}"))),
                &[(200, &status), (202, &status)],
            );
        }
        path
    }

    fn name_parameter(&self) -> Value {
        let mut name = parameter("name");
        name["description"] = json!(format!("Name of the {}.", self.kind));
        name
    }
}

/// Builds one operation object of a version's paths.
struct Operations<'a> {
    crd: &'a Crd,
    version: &'a Version,
    /// The kind the operations speak (the resource's, or `autoscaling/v1` Scale).
    gvk: Value,
}

impl Operations<'_> {
    fn operation(
        &self,
        verb: &str,
        suffix: &str,
        action: &str,
        parameters: &[&str],
        body: Option<(&[&str], &str)>,
        responses: &[(u16, &str)],
    ) -> Value {
        let crd = self.crd;
        let group_words: String = crd.group.split('.').map(pascal_case).collect();
        let scope = if crd.namespaced && suffix != "ForAllNamespaces" { "Namespaced" } else { "" };
        let id = format!("{verb}{group_words}{}{scope}{}{suffix}", pascal_case(&self.version.name), crd.kind);
        let what = match suffix {
            "Status" => format!("the status of {}", crd.kind),
            "Scale" => format!("the scale of {}", crd.kind),
            _ => crd.kind.clone(),
        };
        let description = match verb {
            "list" => format!("List or watch {} objects.", crd.kind),
            "create" => format!("Create a {}.", crd.kind),
            "deletecollection" => format!("Delete a collection of {} objects.", crd.kind),
            "read" => format!("Read {what}."),
            "replace" => format!("Replace {what}."),
            "patch" => format!("Partially update {what}."),
            _ => format!("Delete a {}.", crd.kind),
        };
        let content = |types: &[&str], schema: &str| -> Value {
            Value::Object(types.iter().map(|t| ((*t).to_owned(), json!({"schema": {"$ref": schema}}))).collect())
        };
        let response_types: &[&str] = if verb == "list" {
            &["application/json", "application/json;stream=watch", "application/yaml"]
        } else {
            &["application/json", "application/yaml"]
        };
        let mut responses: Map<String, Value> = responses
            .iter()
            .map(|(code, schema)| {
                (
                    code.to_string(),
                    json!({"description": response_description(*code), "content": content(response_types, schema)}),
                )
            })
            .collect();
        responses.insert("401".to_owned(), json!({"description": "Unauthorized"}));
        let mut operation = json!({
            "description": description,
            "operationId": id,
            "tags": [format!("{}_{}", lower_first(&group_words), self.version.name)],
            "parameters": parameters.iter().map(|p| parameter(p)).collect::<Vec<_>>(),
            "responses": responses,
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": self.gvk,
        });
        if let Some((types, schema)) = body {
            operation["requestBody"] =
                json!({"content": content(types, schema), "required": verb != "deletecollection" && verb != "delete"});
        }
        if parameters.is_empty() {
            operation.as_object_mut().expect("an object").remove("parameters");
        }
        operation
    }
}

/// An error at `problem`'s place inside the value at `pointer`.
fn located(document: &load::Document, pointer: &str, problem: k8s::Problem) -> Error {
    document.error(&format!("{pointer}{}", problem.at), problem.message)
}

/// The description the API server gives a response code.
fn response_description(code: u16) -> &'static str {
    match code {
        201 => "Created",
        202 => "Accepted",
        _ => "OK",
    }
}

/// A parameter of the built-in document, by its key there.
fn parameter(key: &str) -> Value {
    BUILTIN
        .value
        .pointer(&format!("/components/parameters/{key}"))
        .cloned()
        .unwrap_or_else(|| panic!("the built-in document defines parameter {key}"))
}

fn identity_property(name: &str) -> Value {
    let description = match name {
        "apiVersion" => "Versioned schema of this representation of the object.",
        _ => "REST resource this object represents.",
    };
    json!({"description": description, "type": "string"})
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_patterns_compile() {
        assert!(BUILTIN_PATTERNS.contains(&r"^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$"), "{:?}", *BUILTIN_PATTERNS);
        for pattern in BUILTIN_PATTERNS.iter() {
            kube_apigen_validation::go::regexp::compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        }
    }
}
