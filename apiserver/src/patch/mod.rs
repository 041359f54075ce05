//! The four PATCH formats of the API server, and field ownership.
//!
//! | function | Content-Type | failures |
//! |---|---|---|
//! | [`json_patch()`] | `application/json-patch+json` (RFC 6902) | 422 `Invalid` with the API server's generic message; 413 over 10000 operations |
//! | [`merge_patch`] | `application/merge-patch+json` (RFC 7386) | none ([`check_merge_patch`]: 400 for `null` and scalar bodies) |
//! | [`strategic_merge`] | `application/strategic-merge-patch+json` | 400 / 422 (see [`PatchError`]; where the API server answers 500, 400) |
//! | [`apply`] | `application/apply-patch+yaml` (server-side apply) | 409 conflicts, 400 ([`ApplyError`]) |
//!
//! Non-apply writes record their fields with [`record_update`] /
//! [`record_update_with_schema`], so that later applies see who owns what. The list and
//! map semantics come from the OpenAPI documents, through [`SchemaCatalog`].
//!
//! # Strategic merge patch
//!
//! As apimachinery's `StrategicMergeMapPatch`, with the patch metadata read from the
//! OpenAPI schema instead of Go struct tags:
//!
//! - Objects merge key by key; `null` deletes a key; a key absent from the original takes
//!   the patch value (its `null` fields and directives dropped; an object that is itself a
//!   `$patch` directive is not set, as the API server). An object field with
//!   `x-kubernetes-patch-strategy: replace` **or `x-kubernetes-map-type: atomic`** is
//!   replaced (the API server only looks at the strategy).
//! - Lists: with `x-kubernetes-patch-strategy` containing `merge`, items merge by
//!   `x-kubernetes-patch-merge-key` (lists of scalars: union). **Without a patch strategy,
//!   `x-kubernetes-list-type: map` merges by all the `x-kubernetes-list-map-keys` and
//!   `set` is a union** (an extension: the API server replaces such lists, e.g. a CSR's
//!   `status.conditions`). Anything else (`atomic`, no metadata) is replaced.
//! - Order of merged lists: items named in the patch in patch order, the others where they
//!   were relative to them, so new items come first (as the API server does).
//! - Directives: `$patch: replace` (an object or a list item: the rest of the patch
//!   replaces), `$patch: delete` (an object becomes `{}`; a list item deletes the items
//!   with its keys), `$patch: merge` (the default, accepted and dropped; the API server
//!   refuses it), `$retainKeys` (clears the other keys; every key the patch sets must be
//!   listed, else 400), `$deleteFromPrimitiveList/<field>` (removes values from a list of
//!   scalars), `$setElementOrder/<field>` (merges `<field>` and orders the result: listed
//!   items in the listed order; the patch list must follow that order, else 400).
//! - Errors: a body that is not an object is 400 (`json: cannot unmarshal array into Go
//!   value of type map[string]interface {}`); malformed directives 400 as the API server
//!   (`invalid patch format of retainKeys`, `... of primitive list`, `... of setElementOrder
//!   list`); merging into a field the schema does not declare 400 `unable to find api field
//!   in struct HorizontalPodAutoscalerSpec for the json field "foo"` (only reached when
//!   both sides hold an object or a list there); missing merge keys 400 `map: map[...]
//!   does not contain declared merge key: type`; lists of lists 422. Where this module
//!   answers 400, the API server passes the error on as a 500: a bad request here never
//!   gets a server error.
//!
//! # Server-side apply: the subset implemented
//!
//! [`apply`] implements this much of the API server's field management
//! (structured-merge-diff), with list and map semantics from the schema
//! ([`ObjectSchema::apply_list_type`]: `x-kubernetes-list-type`, else a `merge` patch
//! strategy with a merge key as a map list, without one as a set, else atomic;
//! `x-kubernetes-map-type: atomic` objects are single values):
//!
//! 1. **Checks**: the configuration is an object of the schema's group, version and kind
//!    (without a schema, those of the live object), else 400 `invalid object type:
//!    autoscaling/v1, Kind=HorizontalPodAutoscaler`; `metadata.managedFields` must be
//!    absent, else 400 `metadata.managedFields must be nil`; map-list items need their key
//!    fields (or a schema default for them) and must not repeat, else 400 (the API server: 500) `failed to create
//!    typed patch object (ns/name; group/version, Kind=K): .spec.x: duplicate entries for
//!    key [type="A"]`. Fields the schema does not declare are accepted as untyped values
//!    (objects field by field, each field also a member; lists atomic) and left to the
//!    server's field validation (the API server would fail the typed conversion); without
//!    a schema the whole object is untyped.
//! 2. **Owned fields of the configuration** (`ToFieldSet`): every scalar, atomic list and
//!    atomic object; every list item (a map-list item is itself a member, `.`, with its
//!    fields below; a set item is `v:<value>`); every entry of a map with arbitrary keys
//!    (`labels`). Objects that are struct fields are not members themselves, empty objects
//!    and lists own nothing. `apiVersion`, `kind`, `metadata` and `metadata.name`,
//!    `namespace`, `creationTimestamp`, `selfLink`, `uid`, `clusterName`, `generation`,
//!    `managedFields`, `resourceVersion` are never owned.
//! 3. **Merge**: the configuration merges into the live object (or `{}` on create):
//!    objects field by field, map lists by key, sets by value, anything else replaced.
//!    Merged list order: the configuration's order, live-only items kept before the item
//!    that followed them. `null` in the configuration removes the field.
//! 4. **Removal**: fields this manager applied last time (its previous `Apply` entry) and
//!    not this time are removed, unless some manager (`Apply` or `Update`, the new
//!    configuration included) owns them or something inside them; key fields of surviving
//!    map-list items stay; objects and lists emptied by removals are removed.
//! 5. **Conflicts**: comparing live and result, a field added or changed that another
//!    entry (any `Apply` or `Update` entry but this manager's `Apply` one) owns is a
//!    conflict. Same value, no change, no conflict: ownership is shared. Without `force`,
//!    any conflict fails the whole apply with 409 ([`ApplyError::Conflict`]); with `force`,
//!    the other entries lose those fields.
//! 6. **Ownership**: this manager's `Apply` entry (one per manager, whatever the version)
//!    becomes exactly the set of step 2; other entries lose the fields the apply removed;
//!    entries left empty disappear.
//! 7. **Entries**: `{manager, operation: "Apply", apiVersion, time, fieldsType: "FieldsV1",
//!    fieldsV1}`; `time` is set to `now` when the object changed (a no-op apply keeps the
//!    previous time, and a manager's first no-op apply has none, as the API server);
//!    entries sorted by operation, time, manager, API version, subresource.
//!
//! [`record_update_with_schema`] (and [`record_update`], the same without a schema: every
//! list atomic) records `create`/`update`/`patch` writes as the API
//! server's `Update` operation: the fields added or changed (compared as in step 5, with
//! newly present objects and list items as members `.`; fields with `default: {}` in the
//! schema count as present, like the API server's non-pointer structs) are removed from
//! every entry and added to the manager's `Update` entry (one per manager and API
//! version, `time: now`); removed fields are removed from every entry. An update that
//! changes nothing leaves the entries as they were. The request's own `managedFields` are
//! used when valid and non-empty; `[]` or `[{}]` resets them.
//!
//! Writes through a subresource use [`apply_subresource`] / [`record_subresource_update`]:
//! the manager's entry is then the one with `subresource: status` (distinct from its
//! main-resource entry; conflicts name it `"mgr" with subresource "status"`), and a
//! subresource update ignores the request's `managedFields`.
//!
//! Not implemented: resetting fields per endpoint (the API server ignores `status` in an
//! apply to the main resource and everything but `status` through `/status`: the caller
//! should drop those fields from the configuration, as its strategy drops them from the
//! object), the limit of 10 `Update` entries (`ancient-changes`), conversion of entries
//! recorded in other API versions (sets are compared as written), the
//! `last-applied-configuration` annotation upgrade path, unions, `i:` index elements
//! (read, never produced), and defaulting the merged object (the server's job).

mod fieldpath;
mod json;
mod schema;
mod smp;
mod ssa;
#[cfg(test)]
mod tests;

use std::fmt;

use support::gofmt;
use support::status::reason;
use support::{Status, StatusCause, StatusDetails};

pub use json::{MAX_JSON_PATCH_OPERATIONS, check_merge_patch, json_patch, merge_patch};
pub use schema::{ListType, MapType, ObjectSchema, PatchStrategy, SchemaCatalog, SchemaKind};
pub use smp::strategic_merge;
pub use ssa::{apply, apply_subresource, record_subresource_update, record_update, record_update_with_schema};

/// Why a JSON, merge or strategic merge patch failed; [`PatchError::to_status`] is the
/// API server's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchError {
    /// 400 `BadRequest` with this message.
    BadRequest(String),
    /// A JSON Patch operation failed (this detail is not sent: the API server answers 422
    /// `Invalid`, `the server rejected our request due to an error in our request`).
    JsonPatchFailed(String),
    /// 422 `Invalid` with the same generic message (strategic merge patch: lists of lists).
    Unprocessable(String),
    /// 413: more than [`MAX_JSON_PATCH_OPERATIONS`] operations.
    TooManyOperations(usize),
    /// A patch that does not fit the object (a field the schema lacks, a missing merge key,
    /// lists out of order). The API server passes these on as 500s; a bad request here is
    /// never a server error, so they are 400 `BadRequest` with the API server's message.
    Internal(String),
}

/// The message the API server sends for 422s made by `NewGenericServerResponse`.
const GENERIC_UNPROCESSABLE: &str = "the server rejected our request due to an error in our request";

impl PatchError {
    pub fn to_status(&self) -> Status {
        match self {
            PatchError::BadRequest(message) => Status::bad_request(message.clone()),
            PatchError::JsonPatchFailed(_) | PatchError::Unprocessable(_) => {
                let mut status = Status::failure(422, reason::INVALID, GENERIC_UNPROCESSABLE);
                status.details = Some(StatusDetails::default());
                status
            }
            PatchError::TooManyOperations(count) => Status::request_entity_too_large(format!(
                "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {count}"
            )),
            PatchError::Internal(message) => Status::bad_request(message.clone()),
        }
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatchError::BadRequest(m)
            | PatchError::JsonPatchFailed(m)
            | PatchError::Unprocessable(m)
            | PatchError::Internal(m) => f.write_str(m),
            PatchError::TooManyOperations(count) => write!(f, "{count} operations in a JSON patch"),
        }
    }
}

impl std::error::Error for PatchError {}

/// Why a server-side apply failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyError {
    /// Fields another manager owns would change (409).
    Conflict(Vec<Conflict>),
    /// The configuration cannot be applied: 400 `BadRequest` with this message (also for
    /// `failed to ...` messages, which the API server passes on as 500s).
    Invalid(String),
}

/// A field another manager owns, that an apply would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub api_version: String,
    /// Empty for the main resource.
    pub subresource: String,
    /// As the API server prints paths: `.spec.maxReplicas`,
    /// `.status.conditions[type="Ready"].status`.
    pub path: String,
}

impl Conflict {
    /// The manager as conflict messages name it: `"kubectl"` for an applier,
    /// `"kubectl-edit" using autoscaling/v2` for an updater.
    pub fn manager_description(&self) -> String {
        let mut out = gofmt::quote(&self.manager);
        if !self.subresource.is_empty() {
            out.push_str(&format!(" with subresource {}", gofmt::quote(&self.subresource)));
        }
        if self.operation == "Update" {
            out.push_str(&format!(" using {}", self.api_version));
        }
        out
    }
}

impl ApplyError {
    /// The message the API server sends: `Apply failed with 1 conflict: conflict with
    /// "kubectl": .spec.maxReplicas`, or for several, grouped by manager:
    /// `Apply failed with 2 conflicts: conflicts with "a":\n- .spec.x\n- .spec.y`.
    pub fn message(&self) -> String {
        match self {
            ApplyError::Invalid(message) => message.clone(),
            ApplyError::Conflict(conflicts) => match conflicts.as_slice() {
                [only] => {
                    format!("Apply failed with 1 conflict: conflict with {}: {}", only.manager_description(), only.path)
                }
                all => {
                    let mut lines: Vec<String> = Vec::new();
                    let mut current: Option<String> = None;
                    for conflict in all {
                        let who = conflict.manager_description();
                        if current.as_ref() != Some(&who) {
                            lines.push(format!("conflicts with {who}:"));
                            current = Some(who);
                        }
                        lines.push(format!("- {}", conflict.path));
                    }
                    format!("Apply failed with {} conflicts: {}", all.len(), lines.join("\n"))
                }
            },
        }
    }

    /// The API server's answer. A conflict is 409 `Conflict` with one cause per field
    /// (`reason: FieldManagerConflict`, `message: conflict with "kubectl"`, `field:
    /// .spec.maxReplicas`) and, as the API server sends it, no name, group or kind in the
    /// details; the parameters are accepted for symmetry with the other errors.
    pub fn to_status(&self, _group: &str, _resource: &str, _name: &str) -> Status {
        match self {
            ApplyError::Conflict(conflicts) => {
                let causes = conflicts
                    .iter()
                    .map(|c| StatusCause {
                        reason: Some("FieldManagerConflict".to_owned()),
                        message: Some(format!("conflict with {}", c.manager_description())),
                        field: Some(c.path.clone()),
                    })
                    .collect();
                let mut status = Status::failure(409, reason::CONFLICT, self.message());
                status.details = Some(StatusDetails { causes, ..StatusDetails::default() });
                status
            }
            // The API server answers "failed to ..." errors (duplicate or missing list keys)
            // with 500; they are the request's fault, so 400 here.
            ApplyError::Invalid(message) => Status::bad_request(message.clone()),
        }
    }
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for ApplyError {}
