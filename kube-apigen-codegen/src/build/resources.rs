//! The resources: kinds served at a collection path, with what their schema's extensions
//! (or Kubernetes, for its built-in kinds) say of them, and the object-meta check of
//! their objects.

use std::collections::BTreeMap;

use kube_apigen_core::Scope;

use super::builtin_kinds::{builtin_kind, is_stored};
use super::paths::{ParsedPath, parse_path};
use super::{Builder, OBJECT_META};
use crate::error::Result;
use crate::ir::{Gvk, ObjectMetaUse, Origin, Presence, Resource, ResourceId, Struct, Ty, TypeId, TypeKind};
use crate::spec::{Action, HttpMethod, Operation, ResourceExtensions};

impl Builder<'_> {
    /// Finds the resources: kinds an operation on a collection path (list, create or
    /// delete collection) names.
    pub(super) fn collect_resources(&mut self) -> Result<()> {
        let mut found: BTreeMap<Gvk, (TypeId, String, bool)> = BTreeMap::new();
        for operation in &self.spec.operations {
            let Some(path) = parse_path(&operation.path).filter(|p| !p.watch && !p.item) else { continue };
            let Some(gvk) = self.collection_kind(operation, &path) else { continue };
            let Some(type_id) = self.resource_type(&gvk) else { continue };
            let entry = found.entry(gvk).or_insert_with(|| (type_id, path.plural.to_owned(), false));
            // The list across namespaces has no {namespace}; any path with one decides.
            entry.2 |= path.namespaced;
        }
        for (gvk, (type_id, plural, namespaced)) in found {
            let id = ResourceId::new(self.api.resources.len());
            let resource =
                self.resource(type_id, gvk, plural, if namespaced { Scope::Namespaced } else { Scope::Cluster });
            // The API server does not check the metadata of objects it never stores.
            let stored = is_stored(&resource.gvk.group, &resource.gvk.kind);
            let object_meta = if stored { self.object_meta(type_id, &resource) } else { None };
            let TypeKind::Struct(s) = &mut self.api.types[type_id.index()].kind else {
                unreachable!("resources are structs")
            };
            s.resource = Some(id);
            s.object_meta = object_meta;
            self.api.resources.push(resource);
        }
        Ok(())
    }

    /// The kind a collection operation is about: the one its `x-kubernetes-group-version-kind`
    /// names for a list, create or delete collection. Documents of Kubernetes 1.23 and
    /// earlier state neither that nor `x-kubernetes-action`; there a create on the
    /// collection names its kind by the schema of its body.
    fn collection_kind(&self, operation: &Operation, path: &ParsedPath) -> Option<Gvk> {
        match (&operation.gvk, operation.action) {
            (Some(gvk), Some(Action::List | Action::Post | Action::DeleteCollection)) => Some(gvk.clone()),
            (None, None) if operation.method == HttpMethod::Post => {
                let body = operation.request_body.as_ref()?.schema.as_ref()?;
                let schema = &self.spec.schemas[body.reference.as_ref()?.name.as_str()];
                match schema.k8s.gvks.as_slice() {
                    [gvk] if gvk.group == path.group && gvk.version == path.version => Some(gvk.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The struct whose `x-kubernetes-group-version-kind` names exactly this kind.
    fn resource_type(&self, gvk: &Gvk) -> Option<TypeId> {
        self.api
            .type_ids()
            .find(|&id| matches!(&self.ty(id).kind, TypeKind::Struct(s) if s.gvks.len() == 1 && s.gvks[0] == *gvk))
    }

    /// A resource as its schema's extensions describe it; the handler plan fills in its
    /// operations.
    fn resource(&self, type_id: TypeId, gvk: Gvk, plural: String, scope: Scope) -> Resource {
        let no_extensions = ResourceExtensions::default();
        let extensions = match &self.ty(type_id).origin {
            Origin::Schema(name) => &self.spec.schemas[name].k8s.resource,
            Origin::Inline { .. } => &no_extensions,
        };
        let builtin = builtin_kind(&gvk.group, &gvk.kind);
        let builtin_list = |list: fn(&super::builtin_kinds::BuiltinKind) -> &'static [&'static str]| {
            builtin.map(|b| list(b).iter().map(|name| (*name).to_owned()).collect()).unwrap_or_default()
        };
        Resource {
            type_id,
            singular: extensions.singular.clone().unwrap_or_else(|| gvk.kind.to_ascii_lowercase()),
            list_kind: format!("{}List", gvk.kind),
            short_names: extensions.short_names.clone().unwrap_or_else(|| builtin_list(|b| b.short_names)),
            categories: extensions.categories.clone().unwrap_or_else(|| builtin_list(|b| b.categories)),
            name_rule: extensions.name_rule.or(builtin.map(|b| b.name_rule)).unwrap_or_default(),
            columns: extensions.printer_columns.clone().unwrap_or_default(),
            scale: extensions.scale.clone(),
            deprecation_warning: extensions.deprecation_warning.clone(),
            storage_version: extensions.storage_version.unwrap_or(true),
            trait_name: String::new(),
            file: String::new(),
            info_static: String::new(),
            methods: Vec::new(),
            verbs: Vec::new(),
            subresources: Vec::new(),
            gvk,
            plural,
            scope,
        }
    }

    /// How the resource's `metadata` is checked: when it is the shared ObjectMeta, its
    /// name, namespace, labels and annotations follow Kubernetes' conventions.
    fn object_meta(&self, type_id: TypeId, resource: &Resource) -> Option<ObjectMetaUse> {
        let TypeKind::Struct(s) = &self.ty(type_id).kind else { return None };
        let field = s.fields.iter().position(|f| {
            f.wire_name == "metadata"
                && matches!(f.ty.ty, Ty::Named(meta) if self.ty(meta).origin == Origin::Schema(OBJECT_META.to_owned()))
        })?;
        let Ty::Named(meta) = s.fields[field].ty.ty else { unreachable!("found above") };
        // Read the fields the spec's ObjectMeta has; a smaller one leaves the rest empty.
        let meta_field = |wire: &str| match &self.ty(meta).kind {
            TypeKind::Struct(Struct { fields, .. }) => fields
                .iter()
                .find(|f| f.wire_name == wire && f.presence == Presence::Optional)
                .map(|f| f.rust_name.clone()),
            _ => None,
        };
        Some(ObjectMetaUse {
            field,
            scope: resource.scope,
            name_rule: resource.name_rule,
            name: meta_field("name"),
            generate_name: meta_field("generateName"),
            namespace: meta_field("namespace"),
            labels: meta_field("labels"),
            annotations: meta_field("annotations"),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use crate::spec::Spec;

    /// A Kubernetes 1.23-era document: operations without `x-kubernetes-action` or
    /// `x-kubernetes-group-version-kind`.
    #[test]
    fn a_create_without_extensions_names_its_kind_by_its_body() {
        let reference = |name: &str| json!({"$ref": format!("#/components/schemas/io.k8s.api.demo.v1.{name}")});
        let body = json!({"content": {"application/json": {"schema": reference("Widget")}}});
        let document = json!({
            "openapi": "3.0.0",
            "paths": {
                "/apis/demo/v1/namespaces/{namespace}/widgets": {
                    "get": {"responses": {"200": {"content": {"application/json": {"schema": reference("WidgetList")}}}}},
                    "post": {"requestBody": body, "responses": {"201": {"content": {"application/json": {"schema": reference("Widget")}}}}},
                },
                // A create elsewhere, of another group's kind, is no resource of this one.
                "/apis/other/v1/widgets": {"post": {"requestBody": body}},
            },
            "components": {"schemas": {
                "io.k8s.api.demo.v1.Widget": {
                    "type": "object",
                    "properties": {"size": {"type": "integer"}},
                    "x-kubernetes-group-version-kind": [{"group": "demo", "version": "v1", "kind": "Widget"}],
                },
                "io.k8s.api.demo.v1.WidgetList": {
                    "type": "object",
                    "properties": {"items": {"type": "array", "items": reference("Widget")}},
                    "x-kubernetes-group-version-kind": [{"group": "demo", "version": "v1", "kind": "WidgetList"}],
                },
            }},
        });
        let documents = crate::load::parse(Path::new("specs/demo.json"), document.to_string()).unwrap();
        let api = super::super::build(&Spec::read(documents).unwrap(), &Default::default()).unwrap();
        let resources: Vec<_> = api.resources.iter().map(|r| (r.gvk.api_version(), &r.gvk.kind, &r.plural)).collect();
        assert_eq!(resources, [("demo/v1".to_owned(), &"Widget".to_owned(), &"widgets".to_owned())]);
        assert_eq!(api.resources[0].scope, kube_apigen_core::Scope::Namespaced);
    }
}
