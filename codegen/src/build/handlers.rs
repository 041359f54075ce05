//! From operations to handlers: which trait method each operation becomes, the routes that
//! reach it, and the parameter, path and response types operations share.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::naming;
use crate::error::escape_pointer_segment;
use crate::ir::{
    Api, GroupVersion, Gvk, Method, NameRule, Operation, ParamSet, ParameterLocation, PathSet, PrinterColumn,
    ResourceApi, ResponseSet, Role, Route, RouteKind, ScalePaths, Server,
};
use crate::load::Document;

/// A spec path taken apart: `/apis/{group}/{version}[/watch][/namespaces/{namespace}]/{plural}[/{name}[/{sub}]]`.
pub(super) struct ParsedPath<'p> {
    pub group: &'p str,
    pub version: &'p str,
    pub watch: bool,
    pub namespaced: bool,
    pub plural: &'p str,
    pub item: bool,
    pub subresource: Option<&'p str>,
}

pub(super) fn parse_path(path: &str) -> Option<ParsedPath<'_>> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, mut rest) = match segments.as_slice() {
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        ["api", version, rest @ ..] => ("", *version, rest),
        _ => return None,
    };
    let watch = rest.first() == Some(&"watch");
    if watch {
        rest = &rest[1..];
    }
    let namespaced = rest.len() >= 2 && rest[0] == "namespaces" && rest[1] == "{namespace}";
    if namespaced {
        rest = &rest[2..];
    }
    match rest {
        [plural] => Some(ParsedPath { group, version, watch, namespaced, plural, item: false, subresource: None }),
        [plural, "{name}"] => {
            Some(ParsedPath { group, version, watch, namespaced, plural, item: true, subresource: None })
        }
        [plural, "{name}", sub] => {
            Some(ParsedPath { group, version, watch, namespaced, plural, item: true, subresource: Some(sub) })
        }
        _ => None,
    }
}

/// Plans the handler layer of every resource.
pub fn plan(api: &mut Api, docs: &[Document]) {
    let mut planner = Planner::default();
    planner.server.release = docs
        .iter()
        .find_map(|d| d.value.pointer("/info/x-kubernetes-release").and_then(Value::as_str).map(str::to_owned));
    for resource in &mut api.resources {
        let ty = &api.types[resource.type_id];
        let schema =
            docs[ty.source].value.pointer(&format!("/components/schemas/{}", escape_pointer_segment(&ty.schema_name)));
        resource.name_rule = name_rule(schema, &resource.gvk);
    }
    let mut group_versions: BTreeMap<(String, String), GroupVersion> = BTreeMap::new();
    let mut sources: BTreeMap<(String, String), BTreeSet<usize>> = BTreeMap::new();
    for (index, resource) in api.resources.iter().enumerate() {
        let operations: Vec<(&Operation, ParsedPath)> = api
            .operations
            .iter()
            .filter_map(|op| parse_path(&op.path).map(|p| (op, p)))
            .filter(|(_, p)| {
                p.group == resource.gvk.group && p.version == resource.gvk.version && p.plural == resource.plural
            })
            .collect();
        let Some((first, _)) = operations.first() else { continue };
        let source = first.source;
        let methods = planner.methods(resource.namespaced, &operations);
        let ty = &api.types[resource.type_id];
        let taken: BTreeSet<String> =
            api.types.iter().filter(|t| t.module == ty.module).map(|t| t.file.clone()).collect();
        let mut taken = taken;
        let file = naming::unique(format!("{}_api", ty.file), &mut taken, "_");
        let (verbs, subresource_verbs) = verbs(&methods);
        let schema =
            docs[ty.source].value.pointer(&format!("/components/schemas/{}", escape_pointer_segment(&ty.schema_name)));
        let (short_names, categories) = names(schema, &resource.gvk);
        let columns = printer_columns(schema);
        let extension = |key: &str| schema.and_then(|s| s.get(key));
        let text = |key: &str| extension(key).and_then(Value::as_str).map(str::to_owned);
        let api_index = planner.server.resources.len();
        planner.server.resources.push(ResourceApi {
            resource: index,
            trait_name: format!("{}Api", ty.name),
            file,
            info_static: naming::snake_case(&resource.gvk.kind).trim_end_matches('_').to_ascii_uppercase(),
            singular: text("x-kubernetes-singular").unwrap_or_else(|| resource.gvk.kind.to_ascii_lowercase()),
            short_names,
            categories,
            columns,
            scale: extension("x-kubernetes-scale").and_then(scale_paths),
            deprecation_warning: text("x-kubernetes-deprecation-warning"),
            storage_version: extension("x-kubernetes-storage-version") != Some(&Value::Bool(false)),
            methods,
            verbs,
            subresource_verbs,
        });
        let key = (resource.gvk.group.clone(), resource.gvk.version.clone());
        let group_version = group_versions.entry(key).or_insert_with(|| GroupVersion {
            group: resource.gvk.group.clone(),
            version: resource.gvk.version.clone(),
            module: ty.module.clone(),
            openapi: String::new(),
            resources: Vec::new(),
        });
        group_version.resources.push(api_index);
        sources.entry((resource.gvk.group.clone(), resource.gvk.version.clone())).or_default().insert(source);
    }
    for (key, group_version) in &mut group_versions {
        group_version.openapi = serde_json::to_string(&served_document(docs, &sources[key])).unwrap_or_default();
    }
    planner.name_param_sets();
    planner.server.group_versions = group_versions.into_values().collect();
    api.server = planner.server;
    api.notes.extend(planner.notes);
}

#[derive(Default)]
struct Planner {
    server: Server,
    /// Identity of each parameter set (names, types and rules), and the roles using it.
    param_keys: Vec<(String, BTreeSet<Role>)>,
    /// Decisions the user should know of.
    notes: Vec<String>,
}

impl Planner {
    fn methods(&mut self, resource_namespaced: bool, operations: &[(&Operation, ParsedPath)]) -> Vec<Method> {
        let mut methods: Vec<Method> = Vec::new();
        let mut watch_routes = Vec::new();
        let mut list_params = None;
        for (op, parsed) in operations {
            let http_method = op.method.to_ascii_uppercase();
            if parsed.watch {
                let kind = if parsed.item { RouteKind::WatchOne } else { RouteKind::WatchPath };
                watch_routes.push(Route { method: http_method, path: op.path.clone(), kind });
                continue;
            }
            let (role, verb_name) = match (op.method.as_str(), parsed.item) {
                ("get", false) => (Role::List, "list"),
                ("post", false) => (Role::Create, "create"),
                ("delete", false) => (Role::DeleteCollection, "delete_collection"),
                ("get", true) => (Role::Read, "read"),
                ("put", true) => (Role::Replace, "replace"),
                ("patch", true) => (Role::Patch, "patch"),
                ("delete", true) => (Role::Delete, "delete"),
                _ => continue,
            };
            let all_namespaces = role == Role::List && resource_namespaced && !parsed.namespaced;
            let name = match (parsed.subresource, all_namespaces) {
                (Some(sub), _) => format!("{verb_name}_{}", naming::snake_case(sub).trim_end_matches('_')),
                (None, true) => "list_all_namespaces".to_owned(),
                (None, false) => verb_name.to_owned(),
            };
            if methods.iter().any(|m| m.name == name) {
                continue;
            }
            let param_set = self.param_set(op, role);
            let kind = if role == Role::List && op.parameters.iter().any(|p| p.name == "watch") {
                list_params = list_params.or(param_set);
                RouteKind::ListOrWatch
            } else {
                RouteKind::Direct
            };
            let codes: Vec<u16> = op.responses.keys().copied().filter(|c| (200..300).contains(c)).collect();
            let response = codes.first().and_then(|c| op.responses[c].clone());
            let response_set = (codes.len() > 1).then(|| self.response_set(&codes));
            let patch = role == Role::Patch;
            methods.push(Method {
                name,
                role,
                subresource: parsed.subresource.map(str::to_owned),
                all_namespaces,
                path_set: self.path_set(op),
                param_set,
                body: if patch { None } else { op.request_body.as_ref().and_then(|b| b.ty.clone()) },
                patch_types: if patch {
                    op.request_body.as_ref().map(|b| b.content_types.clone()).unwrap_or_default()
                } else {
                    Vec::new()
                },
                success_code: codes.first().copied().unwrap_or(200),
                response_set,
                response,
                routes: vec![Route { method: http_method, path: op.path.clone(), kind }],
                doc: op.doc.clone(),
            });
        }
        // One watch method serves `?watch=true` on list paths and the deprecated /watch/ paths.
        if list_params.is_some() || !watch_routes.is_empty() {
            let list = methods.iter().find(|m| m.role == Role::List);
            let param_set = list_params.or_else(|| list.and_then(|l| l.param_set));
            // A watch of one object passes its name on as a field selector; without one
            // among the parameters it would watch the whole collection instead.
            let has_field_selector = param_set
                .is_some_and(|set| self.server.param_sets[set].params.iter().any(|p| p.name == "fieldSelector"));
            if !has_field_selector {
                for route in watch_routes.iter().filter(|r| r.kind == RouteKind::WatchOne) {
                    self.notes.push(format!(
                        "{} is not served: a watch of one object needs a fieldSelector parameter to select it by name",
                        route.path
                    ));
                }
                watch_routes.retain(|r| r.kind != RouteKind::WatchOne);
            }
            methods.push(Method {
                name: "watch".to_owned(),
                role: Role::Watch,
                subresource: None,
                all_namespaces: false,
                path_set: None,
                param_set,
                body: None,
                patch_types: Vec::new(),
                success_code: 200,
                response_set: None,
                response: list.and_then(|l| l.response.clone()),
                routes: watch_routes,
                doc: Some("Streams changes to the objects a list would return.".to_owned()),
            });
        }
        methods.sort_by(|a, b| {
            (a.role, &a.subresource, a.all_namespaces).cmp(&(b.role, &b.subresource, b.all_namespaces))
        });
        methods
    }

    fn param_set(&mut self, op: &Operation, role: Role) -> Option<usize> {
        let mut params: Vec<_> =
            op.parameters.iter().filter(|p| p.location == ParameterLocation::Query).cloned().collect();
        if params.is_empty() {
            return None;
        }
        params.sort_by(|a, b| a.name.cmp(&b.name));
        let key = format!("{:?}", params.iter().map(|p| (&p.name, &p.ty.ty, &p.ty.rules)).collect::<Vec<_>>());
        let naming_role = if role == Role::Watch { Role::List } else { role };
        if let Some(index) = self.param_keys.iter().position(|(k, _)| *k == key) {
            self.param_keys[index].1.insert(naming_role);
            return Some(index);
        }
        self.param_keys.push((key, BTreeSet::from([naming_role])));
        self.server.param_sets.push(ParamSet { name: String::new(), params });
        Some(self.server.param_sets.len() - 1)
    }

    /// Names each parameter set after the roles using it: `ListParams`, `CreateOrReplaceParams`.
    fn name_param_sets(&mut self) {
        let mut taken = BTreeSet::new();
        for (index, (_, roles)) in self.param_keys.iter().enumerate() {
            let base: Vec<&str> = roles.iter().map(|r| role_name(*r)).collect();
            let name = format!("{}Params", base.join("Or"));
            self.server.param_sets[index].name = naming::unique(name, &mut taken, "");
        }
    }

    fn path_set(&mut self, op: &Operation) -> Option<usize> {
        let mut params: Vec<&str> =
            op.parameters.iter().filter(|p| p.location == ParameterLocation::Path).map(|p| p.name.as_str()).collect();
        if params.is_empty() {
            return None;
        }
        params.sort_by_key(|name| op.path.find(&format!("{{{name}}}")));
        let name = format!("{}Path", params.iter().map(|p| naming::pascal_case(p)).collect::<String>());
        if let Some(index) = self.server.path_sets.iter().position(|s| s.name == name) {
            return Some(index);
        }
        self.server.path_sets.push(PathSet { name, params: params.iter().map(|p| (*p).to_owned()).collect() });
        Some(self.server.path_sets.len() - 1)
    }

    fn response_set(&mut self, codes: &[u16]) -> usize {
        if let Some(index) = self.server.response_sets.iter().position(|s| s.codes == codes) {
            return index;
        }
        let names: Vec<&str> = codes.iter().map(|c| reason_phrase(*c)).collect();
        let name = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{}Or{last}", rest.concat()),
            _ => names.concat(),
        };
        self.server.response_sets.push(ResponseSet { name, codes: codes.to_vec() });
        self.server.response_sets.len() - 1
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Create => "Create",
        Role::Read => "Read",
        Role::Replace => "Replace",
        Role::Patch => "Patch",
        Role::Delete => "Delete",
        Role::List | Role::Watch => "List",
        Role::DeleteCollection => "DeleteCollection",
    }
}

/// The Rust variant name of a success status code.
pub fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "NonAuthoritativeInformation",
        204 => "NoContent",
        205 => "ResetContent",
        206 => "PartialContent",
        _ => "Success",
    }
}

/// Short names and categories shown in discovery (`kubectl get hpa`, `kubectl get all`):
/// from the schema's `x-kubernetes-short-names` and `x-kubernetes-categories` when the spec
/// states them, else Kubernetes' own for its built-in kinds, which its OpenAPI documents
/// do not carry.
fn names(schema: Option<&Value>, gvk: &Gvk) -> (Vec<String>, Vec<String>) {
    let list = |key: &str| -> Option<Vec<String>> {
        let items = schema?.get(key)?.as_array()?;
        Some(items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
    };
    let builtin = BUILTIN_NAMES.iter().find(|(group, kind, _, _)| *group == gvk.group && *kind == gvk.kind);
    let owned = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
    let short_names = list("x-kubernetes-short-names").or_else(|| builtin.map(|b| owned(b.2))).unwrap_or_default();
    let categories = list("x-kubernetes-categories").or_else(|| builtin.map(|b| owned(b.3))).unwrap_or_default();
    (short_names, categories)
}

/// Table columns from the schema's `x-kubernetes-printer-columns`, written like a CRD's
/// `additionalPrinterColumns` (`name`, `type`, `jsonPath`, optional `format`,
/// `description`, `priority`). Without them, Tables show Name and Age.
fn printer_columns(schema: Option<&Value>) -> Vec<PrinterColumn> {
    let Some(columns) = schema.and_then(|s| s.get("x-kubernetes-printer-columns")).and_then(Value::as_array) else {
        return Vec::new();
    };
    columns
        .iter()
        .filter_map(|column| {
            let text = |key: &str| column.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let (name, json_path) = (text("name"), text("jsonPath"));
            (!name.is_empty() && !json_path.is_empty()).then(|| PrinterColumn {
                name,
                type_: Some(text("type")).filter(|t| !t.is_empty()).unwrap_or_else(|| "string".to_owned()),
                format: text("format"),
                description: text("description"),
                priority: column
                    .get("priority")
                    .and_then(Value::as_i64)
                    .and_then(|p| i32::try_from(p).ok())
                    .unwrap_or(0),
                json_path,
            })
        })
        .collect()
}

/// The document served for a group/version: the paths and schemas of the documents its
/// resources come from, with the schemas they refer to that only other documents define
/// (a custom resource's document refers to the shared meta/v1 types).
fn served_document(docs: &[Document], sources: &BTreeSet<usize>) -> Value {
    let sources: Vec<&Value> = sources.iter().map(|&index| &docs[index].value).collect();
    let missing = super::missing_schemas(
        sources.iter().copied(),
        |name| sources.iter().any(|source| super::schema(source, name).is_some()),
        |name| docs.iter().find_map(|d| super::schema(&d.value, name)).map(|schema| ((), schema)),
    );
    let mut served = sources.first().map(|&first| first.clone()).unwrap_or_default();
    for other in sources.iter().skip(1) {
        for section in ["/paths", "/components/schemas"] {
            if let (Some(Value::Object(into)), Some(Value::Object(from))) =
                (served.pointer_mut(section), other.pointer(section))
            {
                for (key, value) in from {
                    into.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
    }
    if let Some(Value::Object(schemas)) = served.pointer_mut("/components/schemas") {
        for (name, (), schema) in missing {
            schemas.insert(name.to_owned(), schema.clone());
        }
    }
    served
}

fn scale_paths(scale: &Value) -> Option<ScalePaths> {
    let text = |key: &str| scale.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(ScalePaths {
        spec_replicas: text("specReplicasPath")?,
        status_replicas: text("statusReplicasPath")?,
        label_selector: text("labelSelectorPath"),
    })
}

/// The rule object names follow: the schema's `x-kubernetes-name-rule`
/// (`dns1123-subdomain`, `dns1123-label` or `path-segment`) when stated, else Kubernetes'
/// own for its built-in kinds, else a DNS-1123 subdomain as for most resources.
fn name_rule(schema: Option<&Value>, gvk: &Gvk) -> NameRule {
    let stated = schema.and_then(|s| s.get("x-kubernetes-name-rule")).and_then(Value::as_str);
    match stated {
        Some("dns1123-label") => NameRule::Dns1123Label,
        Some("path-segment") => NameRule::PathSegment,
        Some(_) => NameRule::Dns1123Subdomain,
        None => BUILTIN_NAME_RULES
            .iter()
            .find(|(group, kind, _)| *group == gvk.group && *kind == gvk.kind)
            .map_or(NameRule::Dns1123Subdomain, |(_, _, rule)| *rule),
    }
}

/// Kinds whose names Kubernetes checks with another rule than a DNS-1123 subdomain.
const BUILTIN_NAME_RULES: &[(&str, &str, NameRule)] = &[
    // Kubernetes accepts any name for a CSR; only the URL path limits it.
    ("certificates.k8s.io", "CertificateSigningRequest", NameRule::PathSegment),
    ("", "Namespace", NameRule::Dns1123Label),
    ("", "Service", NameRule::Dns1123Label),
    ("rbac.authorization.k8s.io", "Role", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRole", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "RoleBinding", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", NameRule::PathSegment),
];

/// Short names and categories of Kubernetes' built-in kinds: (group, kind, short names, categories).
const BUILTIN_NAMES: &[(&str, &str, &[&str], &[&str])] = &[
    ("autoscaling", "HorizontalPodAutoscaler", &["hpa"], &["all"]),
    ("certificates.k8s.io", "CertificateSigningRequest", &["csr"], &[]),
    ("", "Pod", &["po"], &["all"]),
    ("", "Service", &["svc"], &["all"]),
    ("", "Namespace", &["ns"], &[]),
    ("", "ConfigMap", &["cm"], &[]),
    ("apps", "Deployment", &["deploy"], &["all"]),
    ("apps", "StatefulSet", &["sts"], &["all"]),
    ("apps", "DaemonSet", &["ds"], &["all"]),
    ("apps", "ReplicaSet", &["rs"], &["all"]),
    ("policy", "PodDisruptionBudget", &["pdb"], &[]),
    ("apiextensions.k8s.io", "CustomResourceDefinition", &["crd", "crds"], &["api-extensions"]),
    ("discovery.k8s.io", "EndpointSlice", &[], &[]),
    ("coordination.k8s.io", "Lease", &[], &[]),
];

/// Discovery verbs of the resource itself and of each subresource, sorted.
fn verbs(methods: &[Method]) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let mut main = BTreeSet::new();
    let mut subresources: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for method in methods {
        let verb = method.role.verb();
        match &method.subresource {
            Some(sub) => {
                subresources.entry(sub.clone()).or_default().insert(verb);
            }
            None => {
                main.insert(verb);
            }
        }
    }
    let owned = |set: BTreeSet<&str>| set.into_iter().map(str::to_owned).collect();
    (owned(main), subresources.into_iter().map(|(sub, verbs)| (sub, owned(verbs))).collect())
}
