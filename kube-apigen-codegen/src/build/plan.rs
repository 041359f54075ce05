//! From operations to handlers: which trait method each operation becomes, the routes and
//! handlers that reach it, the parameter, path and response types operations share, and
//! the group/versions with their served documents.

use std::collections::{BTreeMap, BTreeSet};

use super::Builder;
use super::paths::{ParsedPath, parse_path};
use crate::ir::{
    FieldType, GroupVersion, Method, ParamSet, ParamSetId, Parameter, PathParam, PathSet, PathSetId, Release,
    ResponseSet, ResponseSetId, ResponseVariant, Role, Route, RouteKind, Subresource, Success, Ty, TypeKind,
};
use crate::naming;
use crate::spec::{DocId, HttpMethod, Operation, ParameterLocation, Schema, SchemaType};
use kube_apigen_core::schema::PatchType;

/// The release reported at `/version` when the specs name none.
const DEFAULT_RELEASE: (&str, &str) = ("1", "32");

impl Builder<'_> {
    /// Plans the handler layer of every resource.
    pub(super) fn plan(&mut self) {
        let spec = self.spec;
        let (major, minor) = DEFAULT_RELEASE;
        self.api.release =
            spec.release.clone().unwrap_or_else(|| Release { major: major.to_owned(), minor: minor.to_owned() });
        let mut planner = Planner::default();
        let mut group_versions: BTreeMap<(String, String), (GroupVersion, BTreeSet<DocId>)> = BTreeMap::new();
        for index in 0..self.api.resources.len() {
            let resource = &self.api.resources[index];
            let operations: Vec<(&Operation, ParsedPath)> = spec
                .operations
                .iter()
                .filter_map(|op| parse_path(&op.path).map(|p| (op, p)))
                .filter(|(_, p)| {
                    p.group == resource.gvk.group && p.version == resource.gvk.version && p.plural == resource.plural
                })
                .collect();
            let methods = planner.methods(self, resource.scope == kube_apigen_core::Scope::Namespaced, &operations);
            let ty = self.ty(resource.type_id);
            let mut taken: BTreeSet<String> =
                self.api.types.iter().filter(|t| t.module == ty.module).map(|t| t.file.clone()).collect();
            let file = naming::unique(format!("{}_api", ty.file), &mut taken, "_");
            let trait_name = format!("{}Api", ty.name);
            let module = ty.module.clone();
            let (verbs, subresources) = self.verbs(&methods, &resource.gvk);
            let resource = &mut self.api.resources[index];
            resource.file = file;
            resource.trait_name = trait_name;
            resource.info_static = naming::snake_case(&resource.gvk.kind).trim_end_matches('_').to_ascii_uppercase();
            resource.methods = methods;
            resource.verbs = verbs;
            resource.subresources = subresources;
            let key = (resource.gvk.group.clone(), resource.gvk.version.clone());
            let (group_version, sources) = group_versions.entry(key).or_insert_with(|| {
                let group_version = GroupVersion {
                    group: resource.gvk.group.clone(),
                    version: resource.gvk.version.clone(),
                    module,
                    openapi: serde_json::Value::Null,
                    resources: Vec::new(),
                };
                (group_version, BTreeSet::new())
            });
            group_version.resources.push(crate::ir::ResourceId::new(index));
            sources.extend(operations.first().map(|(op, _)| op.loc.doc));
        }
        self.api.group_versions = group_versions
            .into_values()
            .map(|(mut group_version, sources)| {
                group_version.openapi = spec.served_document(&sources);
                group_version
            })
            .collect();
        planner.name_param_sets();
        self.api.param_sets = planner.param_sets;
        self.api.path_sets = planner.path_sets;
        self.api.response_sets = planner.response_sets;
        self.api.notes.extend(planner.notes);
    }

    /// Discovery verbs of the resource itself and of each subresource, sorted, with the
    /// kind a subresource speaks when it is not the resource's own.
    fn verbs(&self, methods: &[Method], own: &crate::ir::Gvk) -> (Vec<&'static str>, Vec<Subresource>) {
        let mut main = BTreeSet::new();
        let mut subresources: BTreeMap<&str, (BTreeSet<&'static str>, Option<crate::ir::Gvk>)> = BTreeMap::new();
        for method in methods {
            let verb = method.role.verb().as_str();
            match &method.subresource {
                Some(name) => {
                    let (verbs, kind) = subresources.entry(name).or_default();
                    verbs.insert(verb);
                    if kind.is_none() {
                        *kind = self.response_kind(method).filter(|gvk| gvk != own);
                    }
                }
                None => {
                    main.insert(verb);
                }
            }
        }
        let subresources = subresources
            .into_iter()
            .map(|(name, (verbs, other_kind))| Subresource {
                name: name.to_owned(),
                verbs: verbs.into_iter().collect(),
                other_kind,
            })
            .collect();
        (main.into_iter().collect(), subresources)
    }

    /// The kind a method answers with, when it is a struct of exactly one kind.
    fn response_kind(&self, method: &Method) -> Option<crate::ir::Gvk> {
        let Some(Ty::Named(id)) = &method.response else { return None };
        match &self.ty(*id).kind {
            TypeKind::Struct(s) if s.gvks.len() == 1 => Some(s.gvks[0].clone()),
            _ => None,
        }
    }

    /// A body's or response's type: a named schema, or free-form JSON for anything inline.
    fn body_type(&self, schema: &Schema) -> Ty {
        match (&schema.reference, &schema.all_of) {
            (Some(reference), _) => Ty::Named(self.ids[reference.name.as_str()]),
            (None, Some(inner)) => self.body_type(inner),
            (None, None) => Ty::Value,
        }
    }
}

#[derive(Default)]
struct Planner {
    param_sets: Vec<ParamSet>,
    /// The roles using each parameter set, which name it.
    param_roles: Vec<BTreeSet<Role>>,
    path_sets: Vec<PathSet>,
    response_sets: Vec<ResponseSet>,
    /// Decisions the user should know of.
    notes: Vec<String>,
}

impl Planner {
    fn methods(
        &mut self,
        builder: &Builder,
        resource_namespaced: bool,
        operations: &[(&Operation, ParsedPath)],
    ) -> Vec<Method> {
        let mut methods: Vec<(Method, bool)> = Vec::new();
        let mut watch_routes = Vec::new();
        let mut list_params = None;
        for (op, parsed) in operations {
            if parsed.watch {
                let kind = if parsed.item { RouteKind::WatchOne } else { RouteKind::WatchPath };
                watch_routes.push((op.method, op.path.clone(), kind));
                continue;
            }
            let (role, verb_name) = match (op.method, parsed.item) {
                (HttpMethod::Get, false) => (Role::List, "list"),
                (HttpMethod::Post, false) => (Role::Create, "create"),
                (HttpMethod::Delete, false) => (Role::DeleteCollection, "delete_collection"),
                (HttpMethod::Get, true) => (Role::Read, "read"),
                (HttpMethod::Put, true) => (Role::Replace, "replace"),
                (HttpMethod::Patch, true) => (Role::Patch, "patch"),
                (HttpMethod::Delete, true) => (Role::Delete, "delete"),
                _ => continue,
            };
            let all_namespaces = role == Role::List && resource_namespaced && !parsed.namespaced;
            let name = match (parsed.subresource, all_namespaces) {
                (Some(sub), _) => format!("{verb_name}_{}", naming::snake_case(sub).trim_end_matches('_')),
                (None, true) => "list_all_namespaces".to_owned(),
                (None, false) => verb_name.to_owned(),
            };
            if methods.iter().any(|(m, _)| m.name == name) {
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
            let response = codes.first().and_then(|c| op.responses[c].as_ref()).map(|s| builder.body_type(s));
            let success = match codes.as_slice() {
                [] => Success::Code(200),
                [code] => Success::Code(*code),
                codes => Success::OneOf(self.response_set(codes)),
            };
            let body = op.request_body.as_ref();
            let patch = role == Role::Patch;
            let mut patch_types: Vec<PatchType> = match body {
                Some(body) if patch => {
                    body.content_types.iter().filter_map(|t| PatchType::from_content_type(t)).collect()
                }
                _ => Vec::new(),
            };
            patch_types.sort();
            let handler = format!("handle_{name}");
            methods.push((
                Method {
                    name,
                    role,
                    subresource: parsed.subresource.map(str::to_owned),
                    path_set: self.path_set(op),
                    param_set,
                    body: if patch { None } else { body.and_then(|b| b.schema.as_ref()).map(|s| builder.body_type(s)) },
                    patch_types,
                    success,
                    response,
                    routes: vec![Route { method: op.method, path: op.path.clone(), kind, handler }],
                    doc: op.description.clone(),
                },
                all_namespaces,
            ));
        }
        // One watch method serves `?watch=true` on list paths and the deprecated /watch/ paths.
        if list_params.is_some() || !watch_routes.is_empty() {
            let list = methods.iter().map(|(m, _)| m).find(|m| m.role == Role::List);
            let param_set = list_params.or_else(|| list.and_then(|l| l.param_set));
            // A watch of one object passes its name on as a field selector; without one
            // among the parameters it would watch the whole collection instead.
            let has_field_selector =
                param_set.is_some_and(|set| self.param_sets[set.index()].field("fieldSelector").is_some());
            if !has_field_selector {
                for (_, path, _) in watch_routes.iter().filter(|(_, _, kind)| *kind == RouteKind::WatchOne) {
                    self.notes.push(format!(
                        "{path} is not served: a watch of one object needs a fieldSelector parameter to select it by name"
                    ));
                }
                watch_routes.retain(|(_, _, kind)| *kind != RouteKind::WatchOne);
            }
            let routes = watch_routes
                .into_iter()
                .map(|(method, path, kind)| {
                    // Paths with parameters (a namespace, an object) get their own handler.
                    let handler = if path.contains('{') { "handle_watch" } else { "handle_watch_all" };
                    Route { method, path, kind, handler: handler.to_owned() }
                })
                .collect();
            methods.push((
                Method {
                    name: "watch".to_owned(),
                    role: Role::Watch,
                    subresource: None,
                    path_set: None,
                    param_set,
                    body: None,
                    patch_types: Vec::new(),
                    success: Success::Code(200),
                    response: list.and_then(|l| l.response.clone()),
                    routes,
                    doc: Some("Streams changes to the objects a list would return.".to_owned()),
                },
                false,
            ));
        }
        methods.sort_by(|(a, a_all), (b, b_all)| (a.role, &a.subresource, a_all).cmp(&(b.role, &b.subresource, b_all)));
        methods.into_iter().map(|(method, _)| method).collect()
    }

    fn param_set(&mut self, op: &Operation, role: Role) -> Option<ParamSetId> {
        let mut params: Vec<Parameter> = op
            .parameters
            .iter()
            .filter(|p| p.location == ParameterLocation::Query)
            .map(|p| Parameter {
                name: p.name.clone(),
                rust_name: String::new(),
                ty: parameter_type(&p.schema),
                doc: p.description.clone(),
            })
            .collect();
        if params.is_empty() {
            return None;
        }
        params.sort_by(|a, b| a.name.cmp(&b.name));
        let naming_role = if role == Role::Watch { Role::List } else { role };
        let same = |a: &Parameter, b: &Parameter| a.name == b.name && a.ty == b.ty && a.ty.checks == b.ty.checks;
        let existing = self.param_sets.iter().position(|set| {
            set.params.len() == params.len() && set.params.iter().zip(&params).all(|(a, b)| same(a, b))
        });
        if let Some(index) = existing {
            self.param_roles[index].insert(naming_role);
            return Some(ParamSetId::new(index));
        }
        let mut taken = BTreeSet::new();
        for param in &mut params {
            param.rust_name = naming::unique(naming::snake_case(&param.name), &mut taken, "_");
        }
        let dynamic_options = params
            .iter()
            .enumerate()
            .filter_map(|(index, param)| {
                let carried = kube_apigen_core::schema::DYNAMIC_OPTIONS.iter().find(|(wire, _)| *wire == param.name);
                carried.map(|(_, field)| (index, *field))
            })
            .collect();
        self.param_sets.push(ParamSet { name: String::new(), params, dynamic_options });
        self.param_roles.push(BTreeSet::from([naming_role]));
        Some(ParamSetId::new(self.param_sets.len() - 1))
    }

    /// Names each parameter set after the roles using it: `ListParams`, `CreateOrReplaceParams`.
    fn name_param_sets(&mut self) {
        let mut taken = BTreeSet::new();
        for (set, roles) in self.param_sets.iter_mut().zip(&self.param_roles) {
            let base: Vec<&str> = roles.iter().map(|r| r.set_name()).collect();
            set.name = naming::unique(format!("{}Params", base.join("Or")), &mut taken, "");
        }
    }

    fn path_set(&mut self, op: &Operation) -> Option<PathSetId> {
        let mut names: Vec<&str> =
            op.parameters.iter().filter(|p| p.location == ParameterLocation::Path).map(|p| p.name.as_str()).collect();
        if names.is_empty() {
            return None;
        }
        names.sort_by_key(|name| op.path.find(&format!("{{{name}}}")));
        let name = format!("{}Path", names.iter().map(|p| naming::pascal_case(p)).collect::<String>());
        if let Some(index) = self.path_sets.iter().position(|s| s.name == name) {
            return Some(PathSetId::new(index));
        }
        let mut taken = BTreeSet::new();
        let params = names
            .iter()
            .map(|name| PathParam {
                name: (*name).to_owned(),
                rust_name: naming::unique(naming::snake_case(name), &mut taken, "_"),
            })
            .collect();
        self.path_sets.push(PathSet { name, params });
        Some(PathSetId::new(self.path_sets.len() - 1))
    }

    fn response_set(&mut self, codes: &[u16]) -> ResponseSetId {
        let existing =
            self.response_sets.iter().position(|s| s.variants.iter().map(|v| v.code).eq(codes.iter().copied()));
        if let Some(index) = existing {
            return ResponseSetId::new(index);
        }
        let variants: Vec<ResponseVariant> =
            codes.iter().map(|&code| ResponseVariant { code, name: naming::reason_phrase(code).to_owned() }).collect();
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
        let name = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{}Or{last}", rest.concat()),
            _ => names.concat(),
        };
        self.response_sets.push(ResponseSet { name, variants });
        ResponseSetId::new(self.response_sets.len() - 1)
    }
}

/// Parameters are scalars or lists of scalars; string enums stay strings whose allowed
/// values are a check.
fn parameter_type(schema: &Schema) -> FieldType {
    let mut checks = super::types::checks(schema);
    checks.enum_values.clone_from(&schema.enum_values);
    let scalar = |schema: &Schema| match (schema.ty, schema.format.as_deref()) {
        (Some(SchemaType::Integer), Some("int32")) => Ty::I32,
        (Some(SchemaType::Integer), _) => Ty::I64,
        (Some(SchemaType::Number), _) => Ty::F64,
        (Some(SchemaType::Boolean), _) => Ty::Bool,
        _ => Ty::String,
    };
    let ty = match (schema.ty, &schema.items) {
        (Some(SchemaType::Array), Some(items)) => Ty::Vec(Box::new(FieldType::plain(scalar(items)))),
        (Some(SchemaType::Array), None) => Ty::Vec(Box::new(FieldType::plain(Ty::String))),
        _ => scalar(schema),
    };
    FieldType { ty, checks }
}
