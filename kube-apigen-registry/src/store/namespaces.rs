//! The namespace lifecycle, when the API serves core/v1 namespaces: what kube-apiserver's
//! `NamespaceLifecycle` admission and its system namespaces controller do. (Deleting a
//! terminating namespace's objects is the collector's, as kube-controller-manager's
//! namespace controller does it.)
//!
//! - The system namespaces (`default`, `kube-system`, `kube-public`, `kube-node-lease`)
//!   are created before the store answers its first request.
//! - A create of a namespaced object in a namespace that does not exist is 404 `NotFound`
//!   for the namespace; in a namespace being deleted, 403 `Forbidden` with the
//!   `NamespaceTerminating` cause.
//! - A namespace being deleted reports what is left in it in its conditions
//!   ([`deletion_conditions`], written by the collector).

use std::sync::Arc;

use kube_apigen::ResourceInfo;
use kube_apigen::discovery::ApiCatalog;
use kube_apigen::dynamic::{Options, Request, Verb};
use kube_apigen::http::Context;
use kube_apigen::{Status, StatusCause};
use serde_json::{Value, json};

use super::{Inner, storage_status};
use crate::object;

/// The finalizer of `spec.finalizers` that holds a namespace until it is empty.
pub(crate) const NAMESPACE_FINALIZER: &str = "kubernetes";

/// The namespaces kube-apiserver creates at start.
const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The cause kube-apiserver gives a create in a namespace being deleted.
const TERMINATING_CAUSE: &str = "NamespaceTerminating";

/// Whether `resource` is core/v1 `namespaces`.
pub(super) fn is_namespaces(resource: &ResourceInfo) -> bool {
    resource.group.is_empty() && resource.plural == "namespaces"
}

/// The namespaces resource of `catalog`, when it serves one.
pub(super) fn served(catalog: &ApiCatalog) -> Option<&'static ResourceInfo> {
    catalog.groups.iter().flat_map(|gv| gv.resources.iter().copied()).find(|resource| is_namespaces(resource))
}

impl Inner {
    /// Creates the system namespaces that are missing, once per store.
    pub(super) async fn create_system_namespaces(self: &Arc<Self>) {
        let Some(namespaces) = self.namespaces else {
            return;
        };
        self.system_namespaces
            .get_or_init(|| async {
                for name in SYSTEM_NAMESPACES {
                    let request = Request {
                        verb: Verb::Create,
                        resource: namespaces,
                        subresource: None,
                        namespace: None,
                        name: None,
                        options: Options::default(),
                        body: Some(json!({"metadata": {"name": name}})),
                        patch: None,
                    };
                    // Already there (storage that outlives the process): nothing to do.
                    let _ = self.create(&Context::default(), request).await;
                }
            })
            .await;
    }

    /// Refuses a create of a `resource` object in `namespace` when the namespace is
    /// missing or being deleted. Namespaces themselves and cluster-scoped objects pass.
    pub(super) async fn admit_in_namespace(
        &self,
        resource: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<(), Status> {
        let (Some(namespaces), Some(namespace)) = (self.namespaces, namespace) else {
            return Ok(());
        };
        if !resource.is_namespaced() {
            return Ok(());
        }
        let key = self.keys.object(namespaces, None, namespace);
        let Some(stored) = self.storage.get(&key).await.map_err(storage_status)? else {
            return Err(Status::not_found("", "namespaces", namespace));
        };
        if !object::is_marked(&stored.object) {
            return Ok(());
        }
        let detail = format!("unable to create new content in namespace {namespace} because it is being terminated");
        let mut status = Status::forbidden(resource.group, resource.plural, name, detail);
        if let Some(details) = status.details.as_mut() {
            details.causes.push(StatusCause {
                reason: Some(TERMINATING_CAUSE.to_owned()),
                message: Some(format!("namespace {namespace} is being terminated")),
                field: Some("metadata.namespace".to_owned()),
            });
        }
        Err(status)
    }
}

/// The conditions kube-controller-manager's namespace controller gives a namespace being
/// deleted, in its order, for the content left in it: one `<plural>.<group>` per object
/// (`configmaps.` in the core group) and one name per finalizer they hold. A condition
/// keeps its `lastTransitionTime` from `stored` while its status stays, so the same
/// content gives the same conditions.
pub(super) fn deletion_conditions(
    resources: impl Iterator<Item = String>,
    finalizers: impl Iterator<Item = String>,
    stored: Option<&Vec<Value>>,
    now: &str,
) -> Vec<Value> {
    let (resources, finalizers) = (counted(resources, "has"), counted(finalizers, "in"));
    let remaining = |list: &[String], reason: &'static str, message: &str| {
        (!list.is_empty()).then(|| ("True", reason, format!("{message}: {}", list.join(", "))))
    };
    let ok = |reason: &'static str, message: &str| ("False", reason, message.to_owned());
    let conditions = [
        ("NamespaceDeletionDiscoveryFailure", ok("ResourcesDiscovered", "All resources successfully discovered")),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            ok("ParsedGroupVersions", "All legacy kube types successfully parsed"),
        ),
        (
            "NamespaceDeletionContentFailure",
            ok("ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
        ),
        (
            "NamespaceContentRemaining",
            remaining(&resources, "SomeResourcesRemain", "Some resources are remaining")
                .unwrap_or_else(|| ok("ContentRemoved", "All content successfully removed")),
        ),
        (
            "NamespaceFinalizersRemaining",
            remaining(&finalizers, "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining")
                .unwrap_or_else(|| ok("ContentHasNoFinalizers", "All content-preserving finalizers finished")),
        ),
    ];
    conditions
        .into_iter()
        .map(|(type_, (status, reason, message))| object::condition(stored, type_, status, reason, &message, now))
        .collect()
}

/// `<name> <each> <count> resource instances` per distinct name, in name order.
fn counted(names: impl Iterator<Item = String>, each: &str) -> Vec<String> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for name in names {
        *counts.entry(name).or_default() += 1;
    }
    counts.into_iter().map(|(name, count)| format!("{name} {each} {count} resource instances")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(conditions: &[Value], type_: &str) -> (String, String, String) {
        let c = conditions.iter().find(|c| c["type"] == type_).expect("the condition");
        let text = |key: &str| c[key].as_str().unwrap_or_default().to_owned();
        (text("status"), text("reason"), text("message"))
    }

    #[test]
    fn what_is_left_is_counted_per_resource_and_finalizer_in_name_order() {
        let resources = ["widgets.example.com", "configmaps.", "configmaps."].map(str::to_owned).into_iter();
        let finalizers = ["b.io/x", "a.io/y", "b.io/x"].map(str::to_owned).into_iter();
        let conditions = deletion_conditions(resources, finalizers, None, "2026-12-03T10:00:00Z");
        let types: Vec<&str> = conditions.iter().filter_map(|c| c["type"].as_str()).collect();
        assert_eq!(
            types,
            [
                "NamespaceDeletionDiscoveryFailure",
                "NamespaceDeletionGroupVersionParsingFailure",
                "NamespaceDeletionContentFailure",
                "NamespaceContentRemaining",
                "NamespaceFinalizersRemaining"
            ]
        );
        assert_eq!(
            said(&conditions, "NamespaceContentRemaining").2,
            "Some resources are remaining: configmaps. has 2 resource instances, widgets.example.com has 1 resource instances"
        );
        assert_eq!(
            said(&conditions, "NamespaceFinalizersRemaining").2,
            "Some content in the namespace has finalizers remaining: a.io/y in 1 resource instances, b.io/x in 2 resource instances"
        );
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_stays() {
        let first = deletion_conditions(["configmaps.".to_owned()].into_iter(), std::iter::empty(), None, "T1");
        let again = deletion_conditions(["configmaps.".to_owned()].into_iter(), std::iter::empty(), Some(&first), "T2");
        let emptied = deletion_conditions(std::iter::empty(), std::iter::empty(), Some(&first), "T3");
        let time = |list: &[Value]| {
            let c = list.iter().find(|c| c["type"] == "NamespaceContentRemaining").expect("the condition");
            c["lastTransitionTime"].as_str().unwrap_or_default().to_owned()
        };
        assert_eq!((time(&first), time(&again), time(&emptied)), ("T1".into(), "T1".into(), "T3".into()));
        // Unchanged content gives the same conditions, times included: nothing to write.
        assert_eq!(first, again);
        assert_ne!(first, emptied);
        assert_eq!(
            said(&emptied, "NamespaceContentRemaining"),
            ("False".into(), "ContentRemoved".into(), "All content successfully removed".into())
        );
    }
}
