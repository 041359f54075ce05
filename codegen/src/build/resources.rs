//! The resources: kinds served at a collection path, with what their schema's extensions
//! (or Kubernetes, for its built-in kinds) say of them, and the object-meta check of
//! their objects.

use std::collections::BTreeMap;

use support::Scope;

use super::builtin_kinds::builtin_kind;
use super::paths::parse_path;
use super::{Builder, OBJECT_META};
use crate::error::Result;
use crate::ir::{Gvk, ObjectMetaUse, Origin, Presence, Resource, ResourceId, Struct, Ty, TypeId, TypeKind};
use crate::spec::{Action, ResourceExtensions};

impl Builder<'_> {
    /// Finds the resources: kinds an operation on a collection path (list, create or
    /// delete collection) names.
    pub(super) fn collect_resources(&mut self) -> Result<()> {
        let mut found: BTreeMap<Gvk, (TypeId, String, bool)> = BTreeMap::new();
        for operation in &self.spec.operations {
            let Some(path) = parse_path(&operation.path).filter(|p| !p.watch && !p.item) else { continue };
            let collection_action =
                matches!(operation.action, Some(Action::List | Action::Post | Action::DeleteCollection));
            let Some(gvk) = operation.gvk.as_ref().filter(|_| collection_action) else { continue };
            let Some(type_id) = self.resource_type(gvk) else { continue };
            let entry = found.entry(gvk.clone()).or_insert_with(|| (type_id, path.plural.to_owned(), false));
            // The list across namespaces has no {namespace}; any path with one decides.
            entry.2 |= path.namespaced;
        }
        for (gvk, (type_id, plural, namespaced)) in found {
            let id = ResourceId::new(self.api.resources.len());
            let resource =
                self.resource(type_id, gvk, plural, if namespaced { Scope::Namespaced } else { Scope::Cluster });
            let object_meta = self.object_meta(type_id, &resource);
            let TypeKind::Struct(s) = &mut self.api.types[type_id.index()].kind else {
                unreachable!("resources are structs")
            };
            s.resource = Some(id);
            s.object_meta = object_meta;
            self.api.resources.push(resource);
        }
        Ok(())
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
