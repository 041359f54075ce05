//! What a resource does beyond the generic store: a [`Strategy`] per resource, as the
//! API server's registry gives each kind its `RESTCreateStrategy`, `RESTUpdateStrategy`
//! and table convertor.
//!
//! The store does everything every kind needs (identity, `resourceVersion`, generation,
//! managed fields, finalizers, the typed checks of the generated models, status and scale
//! subresources); a strategy adds what only its kind does, at fixed points of each write:
//!
//! | step | create | update (resource or subresource) |
//! |---|---|---|
//! | the stored fields the endpoint may not change are kept | — | [`Strategy::reset_fields`] |
//! | the kind's own preparation | [`Strategy::prepare_for_create`] | [`Strategy::prepare_for_update`] |
//! | the typed checks of the model, then the kind's own | [`Strategy::validate`] | [`Strategy::validate_update`] |
//! | may it be written? | [`Strategy::admit`] | [`Strategy::admit`] |
//! | committed, then told | [`Strategy::after_write`] | [`Strategy::after_write`] |
//!
//! A delete asks [`Strategy::admit_delete`] first; an object that
//! [`Strategy::holds_deletion`] is only marked, as one with finalizers is, and
//! [`Strategy::prepare_for_deletion`] adjusts it then. A resource that is never stored
//! (a review) answers its creates with [`Strategy::answer`] instead, after the checks.
//!
//! Every method has a default that does nothing beyond the generic behaviour, so a
//! strategy implements only what its kind needs. Register one per resource on the
//! server's builder ([`crate::ServerBuilder::strategy`]).

use std::sync::Arc;

use futures::future::BoxFuture;
use kube_apigen::ResourceInfo;
use kube_apigen::Status;
use kube_apigen::field::ErrorList;
use kube_apigen::http::{TableConvertor, UserInfo};
use serde_json::Value;

use crate::selector::SelectableFields;

/// What a strategy learns about the write it takes part in.
#[derive(Clone, Copy, Debug)]
pub struct WriteContext<'a> {
    /// The resource written, in the version of the request.
    pub resource: &'static ResourceInfo,
    /// The subresource written through (`status`, `scale`, `approval`, ...); `None` for the
    /// resource itself.
    pub subresource: Option<&'a str>,
    /// Who writes: the authenticated user, or `system:anonymous`.
    pub user: &'a UserInfo,
    /// The time of the write, as RFC 3339 with seconds (what timestamps it sets should say).
    pub now: &'a str,
    /// `dryRun=All`: the write is checked and answered, but not committed.
    pub dry_run: bool,
}

/// A committed write, as [`Strategy::after_write`] is told of it.
#[derive(Clone, Copy, Debug)]
pub enum Written<'a> {
    /// A new object, as stored.
    Created(&'a Value),
    /// An object replaced, or marked for deletion (`deletionTimestamp` set on an object
    /// with finalizers).
    Updated {
        /// The object before the write.
        old: &'a Value,
        /// The object as stored now.
        new: &'a Value,
    },
    /// The object is gone (after its last finalizer, or at once).
    Deleted(&'a Value),
}

/// The kind-specific behaviour of one resource. Objects are JSON (`metadata`, `spec`,
/// `status`, ...), as the store holds them.
pub trait Strategy: Send + Sync + 'static {
    /// Sets what the server owns on a new object, before it is checked: fields filled from
    /// the requesting user, a status the client may not set, defaults that need code.
    /// (`status` is already removed for a kind with a status subresource.)
    fn prepare_for_create(&self, context: &WriteContext<'_>, object: &mut Value) {
        let _ = (context, object);
    }

    /// Adjusts the next version of an object, after [`Strategy::reset_fields`] were kept
    /// and before it is checked.
    fn prepare_for_update(&self, context: &WriteContext<'_>, new: &mut Value, old: &Value) {
        let _ = (context, new, old);
    }

    /// Errors of a new object beyond what its spec states (those the generated model
    /// already reports).
    fn validate(&self, context: &WriteContext<'_>, object: &Value) -> ErrorList {
        let _ = (context, object);
        ErrorList::new()
    }

    /// Errors of an update beyond what its spec states: immutable fields, transitions the
    /// kind forbids.
    fn validate_update(&self, context: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        let _ = (context, new, old);
        ErrorList::new()
    }

    /// The top-level fields a write through the resource itself leaves as they are stored
    /// (the API server's reset fields; server-side apply leaves them out of an apply
    /// configuration too). By default `status` when the resource has a status
    /// subresource, which is then the only way to write it.
    fn reset_fields(&self, resource: &ResourceInfo) -> Vec<&'static str> {
        if resource.subresource("status").is_some() { vec!["status"] } else { Vec::new() }
    }

    /// The subresources besides `status` and `scale` (which the store serves itself)
    /// that this strategy serves: reads answer the object, writes go through
    /// [`Strategy::update_subresource`]. Others are 405 `MethodNotAllowed`.
    fn subresources(&self) -> &[&'static str] {
        &[]
    }

    /// The next object of a write through one of [`Strategy::subresources`], from the
    /// stored object and the body sent. By default the write changes nothing.
    fn update_subresource(&self, subresource: &str, old: &Value, body: &Value) -> Value {
        let _ = (subresource, body);
        old.clone()
    }

    /// The fields lists and watches of the resource can be selected by
    /// (`fieldSelector`): `metadata.name` and `metadata.namespace` by default.
    fn selectable_fields(&self) -> SelectableFields {
        SelectableFields::default()
    }

    /// The resource's `Table` (`kubectl get`) when its columns need code: `None` prints
    /// the columns its spec declares.
    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        None
    }

    /// Called once a write is committed (not for dry runs), in the request that made it:
    /// for what follows a write, such as work done by a controller.
    fn after_write(&self, context: &WriteContext<'_>, written: Written<'_>) {
        let _ = (context, written);
    }

    /// Asked before a create or an update is committed (dry runs too), with the object as
    /// it would be stored and, on updates, the stored one; an `Err` refuses the write (as
    /// RBAC refuses a role that grants more than its writer holds). By default every
    /// write proceeds.
    fn admit<'a>(
        &'a self,
        context: &'a WriteContext<'a>,
        new: &'a Value,
        old: Option<&'a Value>,
    ) -> BoxFuture<'a, Result<(), Status>> {
        let _ = (context, new, old);
        Box::pin(std::future::ready(Ok(())))
    }

    /// Asked before an object is deleted (or marked); an `Err` refuses the delete, as
    /// kube-apiserver refuses to delete the `default` namespace. By default every delete
    /// proceeds.
    fn admit_delete(&self, object: &Value) -> Result<(), Status> {
        let _ = object;
        Ok(())
    }

    /// Whether a deleted object waits, marked, for something besides its
    /// `metadata.finalizers` (a namespace for its `spec.finalizers`); it goes once
    /// neither holds it. By default only finalizers hold an object.
    fn holds_deletion(&self, object: &Value) -> bool {
        let _ = object;
        false
    }

    /// Adjusts an object as a delete marks it (`deletionTimestamp` set): a namespace
    /// enters its `Terminating` phase.
    fn prepare_for_deletion(&self, object: &mut Value) {
        let _ = object;
    }

    /// For a resource that is never stored, such as a review: what answers its creates,
    /// once the object sent is checked ([`Strategy::validate`] too). `None`, the default:
    /// objects are stored.
    fn answer(&self) -> Option<&dyn Answer> {
        None
    }
}

/// How a resource that is never stored answers a create ([`Strategy::answer`]).
pub trait Answer: Send + Sync {
    /// The answer (201) to a create of `object`, checked, in `namespace` for a namespaced
    /// resource.
    fn create<'a>(
        &'a self,
        context: &'a WriteContext<'a>,
        namespace: Option<&'a str>,
        object: Value,
    ) -> BoxFuture<'a, Result<Value, Status>>;
}

/// The strategy of resources nobody registered one for: only the generic behaviour.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultStrategy;

impl Strategy for DefaultStrategy {}
