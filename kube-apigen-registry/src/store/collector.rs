//! The garbage collector: what kube-controller-manager's garbage collector does to the
//! objects of a store, by their `metadata.ownerReferences`.
//!
//! One task per store, started by its first request, ending when the store is dropped
//! or shut down. It watches every key of the store; after a batch of changes that
//! concerns it (a write of an object with owner references, an owner marked with one of
//! its finalizers, the deletion of an object some other object names as its owner, a
//! namespace marked, the deletion of an object in a namespace being deleted) it
//! reads every object, indexes owner uid → dependents and acts:
//!
//! - an object whose owners are all gone (no object of the reference's uid, kind and name,
//!   in the dependent's namespace or cluster-scoped) is deleted in the background; one
//!   that still has an owner only loses its references to the gone ones;
//! - an owner marked with the `orphan` finalizer: its dependents lose their reference to
//!   it, then the finalizer is removed;
//! - an owner marked with the `foregroundDeletion` finalizer: its dependents are deleted
//!   in the foreground; once none with `blockOwnerDeletion: true` is left, the finalizer
//!   is removed;
//! - a namespace being deleted (as kube-controller-manager's namespace controller does
//!   it): every object in it is deleted in the background; once none is left, the
//!   `kubernetes` finalizer leaves its `spec.finalizers` through the `finalize`
//!   subresource, and the namespace goes.
//!
//! Every kind of the catalog is read, and the custom resources of the stored
//! definitions.
//!
//! Its writes are requests to the store (merge patches guarded by `resourceVersion`,
//! deletes guarded by uid), so watches see them and a write that loses a race is done
//! again in a later round.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::FutureExt;
use kube_apigen::ResourceInfo;
use kube_apigen::dynamic::{Options, Request, Verb};
use kube_apigen::http::{Context, Patch};
use serde_json::{Value, json};

use super::Inner;
use super::namespaces::NAMESPACE_FINALIZER;
use super::write::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::object::{self, meta_str};
use crate::storage::{Event, RangeRequest, WatchItem, WatchStream};

/// The field manager of the collector's writes.
const MANAGER: &str = "generic-garbage-collector";

/// The field manager of its writes as the namespace controller.
const NAMESPACE_MANAGER: &str = "namespace-controller";

/// How long the collector waits before another round when a write of the last one failed.
const RETRY: Duration = Duration::from_millis(200);

/// An object as the collector sees it.
struct Node {
    resource: &'static ResourceInfo,
    object: Arc<Value>,
}

impl Node {
    fn meta(&self, field: &str) -> &str {
        meta_str(&self.object, field)
    }

    fn owner_references(&self) -> &[Value] {
        self.object.pointer("/metadata/ownerReferences").and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    fn marked(&self) -> bool {
        object::is_marked(&self.object)
    }

    fn has_finalizer(&self, finalizer: &str) -> bool {
        object::finalizers(&self.object).iter().any(|f| f == finalizer)
    }

    fn is_namespace(&self) -> bool {
        super::namespaces::is_namespaces(self.resource)
    }
}

/// The `uid` of an owner reference.
fn reference_uid(reference: &Value) -> &str {
    reference.get("uid").and_then(Value::as_str).unwrap_or("")
}

impl Inner {
    /// Starts the store's collector, once.
    pub(super) fn start_collector(self: &Arc<Self>) {
        self.collector.get_or_init(|| {
            tokio::spawn(run(Arc::downgrade(self), self.shutdown.subscribe()));
        });
    }

    /// Every object of the store, each with the resource it is stored as: the kinds of
    /// the catalog, then the custom resources of the stored definitions.
    async fn nodes(&self) -> Option<Vec<Node>> {
        let mut nodes = Vec::new();
        let mut seen = Vec::new();
        for gv in self.catalog.groups {
            for &resource in gv.resources {
                self.read_nodes(resource, &mut seen, &mut nodes).await?;
            }
        }
        let definitions: Vec<&'static ResourceInfo> = nodes
            .iter()
            .filter(|node| node.resource.group == crate::crd::GROUP && node.resource.plural == crate::crd::PLURAL)
            .filter_map(|node| crate::custom::storage_resource(&node.object))
            .collect();
        for resource in definitions {
            self.read_nodes(resource, &mut seen, &mut nodes).await?;
        }
        Some(nodes)
    }

    /// Adds the objects of `resource` to `nodes`, unless its storage prefix was `seen`.
    async fn read_nodes(
        &self,
        resource: &'static ResourceInfo,
        seen: &mut Vec<String>,
        nodes: &mut Vec<Node>,
    ) -> Option<()> {
        let prefix = self.keys.resource(resource);
        if seen.contains(&prefix) {
            return Some(());
        }
        let request = RangeRequest { prefix: &prefix, start_after: None, revision: None, limit: None };
        let range = self.storage.range(request).await.ok()?;
        nodes.extend(range.items.into_iter().map(|kv| Node { resource, object: kv.object }));
        seen.push(prefix);
        Some(())
    }

    /// One round over every object.
    async fn collect(self: &Arc<Self>) -> Round {
        let Some(nodes) = self.nodes().await else {
            return Round { done: false, owners: HashSet::new(), terminating: HashSet::new() };
        };
        let by_uid: HashMap<&str, &Node> = nodes.iter().map(|node| (node.meta("uid"), node)).collect();
        let mut dependents: HashMap<&str, Vec<&Node>> = HashMap::new();
        for node in &nodes {
            for reference in node.owner_references() {
                dependents.entry(reference_uid(reference)).or_default().push(node);
            }
        }
        // Whether the owner a dependent's reference names exists.
        let exists = |dependent: &Node, reference: &Value| {
            by_uid.get(reference_uid(reference)).is_some_and(|owner| {
                owner.meta("name") == reference.get("name").and_then(Value::as_str).unwrap_or("")
                    && owner.object.get("kind").and_then(Value::as_str) == reference.get("kind").and_then(Value::as_str)
                    && (!owner.resource.is_namespaced() || owner.meta("namespace") == dependent.meta("namespace"))
            })
        };
        let mut done = true;
        let mut terminating = HashSet::new();
        for namespace in nodes.iter().filter(|node| node.marked() && node.is_namespace()) {
            let name = namespace.meta("name");
            terminating.insert(name.to_owned());
            let contents = nodes.iter().filter(|node| node.resource.is_namespaced() && node.meta("namespace") == name);
            // What is left once this round's deletes are done: objects held by finalizers,
            // and those whose delete failed (tried again next round).
            let mut remaining = Vec::new();
            for node in contents {
                let deleted = node.marked() || self.delete_node(node, "Background").await;
                done &= deleted;
                if !deleted || !object::finalizers(&node.object).is_empty() {
                    remaining.push(node);
                }
            }
            done &= match remaining.is_empty() {
                true => self.finalize_namespace(namespace).await,
                false => self.report_namespace_content(namespace, &remaining).await,
            };
        }
        for owner in nodes.iter().filter(|node| node.marked()) {
            let uid = owner.meta("uid");
            let own: Vec<&Node> = dependents
                .get(uid)
                .into_iter()
                .flatten()
                .copied()
                .filter(|dependent| {
                    dependent.owner_references().iter().any(|r| exists(dependent, r) && reference_uid(r) == uid)
                })
                .collect();
            if owner.has_finalizer(ORPHAN_FINALIZER) {
                let mut orphaned = true;
                for dependent in &own {
                    let kept: Vec<Value> =
                        dependent.owner_references().iter().filter(|r| reference_uid(r) != uid).cloned().collect();
                    orphaned &= self.set_owner_references(dependent, kept).await;
                }
                done &= orphaned && self.remove_finalizer(owner, ORPHAN_FINALIZER).await;
            } else if owner.has_finalizer(FOREGROUND_FINALIZER) {
                for dependent in own.iter().filter(|dependent| !dependent.marked()) {
                    done &= self.delete_node(dependent, "Foreground").await;
                }
                let blocked = own.iter().any(|dependent| {
                    dependent.owner_references().iter().any(|r| {
                        reference_uid(r) == uid && r.get("blockOwnerDeletion").and_then(Value::as_bool) == Some(true)
                    })
                });
                if !blocked {
                    done &= self.remove_finalizer(owner, FOREGROUND_FINALIZER).await;
                }
            }
        }
        for dependent in nodes.iter().filter(|node| !node.marked() && !node.owner_references().is_empty()) {
            let references = dependent.owner_references();
            let present: Vec<Value> = references.iter().filter(|r| exists(dependent, r)).cloned().collect();
            if present.is_empty() {
                done &= self.delete_node(dependent, "Background").await;
            } else if present.len() < references.len() {
                done &= self.set_owner_references(dependent, present).await;
            }
        }
        Round { done, owners: dependents.into_keys().map(str::to_owned).collect(), terminating }
    }

    /// Removes the `kubernetes` finalizer of an empty namespace being deleted, through its
    /// `finalize` subresource; the namespace goes when nothing else holds it.
    async fn finalize_namespace(self: &Arc<Self>, namespace: &Node) -> bool {
        let mut finalized = (*namespace.object).clone();
        let Some(finalizers) = finalized.pointer_mut("/spec/finalizers").and_then(Value::as_array_mut) else {
            return true;
        };
        finalizers.retain(|f| f.as_str() != Some(NAMESPACE_FINALIZER));
        let mut request = self.request(namespace, Verb::Update);
        request.subresource = Some("finalize");
        request.body = Some(finalized);
        let context = Context { field_manager: Some(NAMESPACE_MANAGER.to_owned()), ..Context::default() };
        Arc::clone(self).handle(context, request).await.is_ok()
    }

    /// Sets the conditions of a namespace being deleted to what is left in it, as
    /// kube-controller-manager's namespace controller words them; writes nothing when they
    /// say that already.
    async fn report_namespace_content(self: &Arc<Self>, namespace: &Node, remaining: &[&Node]) -> bool {
        let resources = remaining.iter().map(|node| format!("{}.{}", node.resource.plural, node.resource.group));
        let finalizers = remaining.iter().flat_map(|node| object::finalizers(&node.object));
        let stored = namespace.object.pointer("/status/conditions").and_then(Value::as_array);
        let conditions = super::namespaces::deletion_conditions(resources, finalizers, stored, &object::now());
        if stored.is_some_and(|stored| *stored == conditions) {
            return true;
        }
        let mut reported = (*namespace.object).clone();
        object::top_mut(&mut reported, "status").insert("conditions".to_owned(), Value::Array(conditions));
        let mut request = self.request(namespace, Verb::Update);
        request.subresource = Some("status");
        request.body = Some(reported);
        let context = Context { field_manager: Some(NAMESPACE_MANAGER.to_owned()), ..Context::default() };
        Arc::clone(self).handle(context, request).await.is_ok()
    }

    /// Sets a node's owner references (removing the field when none are left).
    async fn set_owner_references(self: &Arc<Self>, node: &Node, references: Vec<Value>) -> bool {
        let references = if references.is_empty() { Value::Null } else { Value::Array(references) };
        self.patch_meta(node, json!({"ownerReferences": references})).await
    }

    /// Removes one finalizer of a node; the object goes when it was the last.
    async fn remove_finalizer(self: &Arc<Self>, node: &Node, finalizer: &str) -> bool {
        let kept: Vec<String> = object::finalizers(&node.object).into_iter().filter(|f| f != finalizer).collect();
        let kept = if kept.is_empty() { Value::Null } else { json!(kept) };
        self.patch_meta(node, json!({"finalizers": kept})).await
    }

    /// A merge patch of a node's metadata, guarded by its `resourceVersion`.
    async fn patch_meta(self: &Arc<Self>, node: &Node, mut metadata: Value) -> bool {
        metadata["resourceVersion"] = json!(node.meta("resourceVersion"));
        let mut request = self.request(node, Verb::Patch);
        request.patch = Some(Patch::Merge(json!({"metadata": metadata})));
        let context = Context { field_manager: Some(MANAGER.to_owned()), ..Context::default() };
        Arc::clone(self).handle(context, request).await.is_ok()
    }

    /// Deletes a node (guarded by its uid) with the propagation policy `policy`; one
    /// already gone counts as deleted.
    async fn delete_node(self: &Arc<Self>, node: &Node, policy: &str) -> bool {
        let mut request = self.request(node, Verb::Delete);
        request.body = Some(json!({"propagationPolicy": policy, "preconditions": {"uid": node.meta("uid")}}));
        match Arc::clone(self).handle(Context::default(), request).await {
            Ok(_) => true,
            Err(status) => status.code() == 404,
        }
    }

    /// A request naming a node.
    fn request(&self, node: &Node, verb: Verb) -> Request {
        let namespace = node.resource.is_namespaced().then(|| node.meta("namespace").to_owned());
        Request {
            verb,
            resource: node.resource,
            subresource: None,
            namespace,
            name: Some(node.meta("name").to_owned()),
            options: Options::default(),
            body: None,
            patch: None,
        }
    }
}

/// What a round of the collector leaves.
struct Round {
    /// Whether everything was done (else another round follows soon).
    done: bool,
    /// The uids the objects' owner references name, as the round read them.
    owners: HashSet<String>,
    /// The namespaces being deleted, as the round read them.
    terminating: HashSet<String>,
}

impl Round {
    /// Whether a change may give the collector work. Objects that gain owner references
    /// show in the change itself, so between rounds `owners` covers every deletion that
    /// could leave dependents behind.
    fn concerns(&self, event: &Event) -> bool {
        let object = &event.object;
        let named =
            object.pointer("/metadata/ownerReferences").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
        let finalizing = object::is_marked(object)
            && object::finalizers(object).iter().any(|f| f == ORPHAN_FINALIZER || f == FOREGROUND_FINALIZER);
        let namespace = object.get("kind").and_then(Value::as_str) == Some("Namespace")
            && object.get("apiVersion").and_then(Value::as_str) == Some("v1")
            && object::is_marked(object);
        let emptying = event.deleted && self.terminating.contains(meta_str(object, "namespace"));
        named || finalizing || namespace || emptying || (event.deleted && self.owners.contains(meta_str(object, "uid")))
    }
}

/// The collector's task: a round, then another after each batch of changes, until the
/// store is gone or shut down.
async fn run(store: Weak<Inner>, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    loop {
        let Some(inner) = store.upgrade() else {
            return;
        };
        let root = inner.keys.root();
        let opened = match inner.storage.revision().await {
            Ok(revision) => inner.storage.watch(&root, revision).await.ok(),
            Err(_) => None,
        };
        drop(inner);
        let Some(mut changes) = opened else {
            tokio::select! {
                changed = shutdown.changed() => if changed.is_err() || *shutdown.borrow() { return },
                () = tokio::time::sleep(RETRY) => {}
            }
            continue;
        };
        loop {
            let Some(inner) = store.upgrade() else {
                return;
            };
            let round = inner.collect().await;
            drop(inner);
            let reopen = loop {
                tokio::select! {
                    changed = shutdown.changed() => if changed.is_err() || *shutdown.borrow() { return },
                    item = changes.next() => match item {
                        Some(WatchItem::Event(event)) => {
                            let (concerned, reopen) = drain(changes.as_mut(), &round);
                            if reopen || concerned || round.concerns(&event) {
                                break reopen;
                            }
                        }
                        Some(WatchItem::Progress(_)) => {}
                        Some(WatchItem::Failed(_)) | None => break true,
                    },
                    () = tokio::time::sleep(RETRY), if !round.done => break false,
                }
            };
            if reopen {
                break;
            }
        }
    }
}

/// Takes the changes already there, so that a burst of writes costs one round: whether
/// one of them concerns the collector, and whether the watch must be opened again.
fn drain(changes: &mut dyn WatchStream, round: &Round) -> (bool, bool) {
    let mut concerned = false;
    while let Some(item) = changes.next().now_or_never() {
        match item {
            Some(WatchItem::Event(event)) => concerned |= round.concerns(&event),
            Some(WatchItem::Progress(_)) => {}
            Some(WatchItem::Failed(_)) | None => return (concerned, true),
        }
    }
    (concerned, false)
}
