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

use std::sync::Arc;

use kube_apigen::ResourceInfo;
use kube_apigen::dynamic::{Options, Request, Verb};
use kube_apigen::http::Context;
use kube_apigen::{Status, StatusCause};
use serde_json::json;

use super::{Inner, storage_status};
use crate::object;

/// The namespaces kube-apiserver creates at start.
pub const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The cause kube-apiserver gives a create in a namespace being deleted.
const TERMINATING_CAUSE: &str = "NamespaceTerminating";

impl Inner {
    /// The core/v1 namespaces resource, when the API serves it and namespaces have their
    /// lifecycle ([`super::StoreConfig::namespace_lifecycle`]).
    pub(super) fn namespaces(&self) -> Option<&'static ResourceInfo> {
        if !self.namespace_lifecycle {
            return None;
        }
        self.catalog
            .groups
            .iter()
            .filter(|gv| gv.group.is_empty())
            .flat_map(|gv| gv.resources.iter().copied())
            .find(|resource| resource.plural == "namespaces")
    }

    /// Creates the system namespaces that are missing, once per store.
    pub(super) async fn create_system_namespaces(self: &Arc<Self>) {
        let Some(namespaces) = self.namespaces() else {
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
        let (Some(namespaces), Some(namespace)) = (self.namespaces(), namespace) else {
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
