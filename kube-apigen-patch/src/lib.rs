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
//! The rules of each format are told next to its code: strategic merge patch in `smp`,
//! server-side apply and field ownership in `ssa` (its steps in `ssa::fieldset`,
//! `ssa::merge` and `ssa::managed_fields`).

mod fieldpath;
mod json;
mod schema;
mod smp;
mod ssa;
#[cfg(test)]
mod tests;

use std::fmt;

use kube_apigen_core::go::fmt as gofmt;
use kube_apigen_core::status::reason;
use kube_apigen_core::{Status, StatusCause, StatusDetails};

pub use json::{MAX_JSON_PATCH_OPERATIONS, check_merge_patch, json_patch, merge_patch};
pub use schema::{ListType, MapType, ObjectSchema, PatchStrategy, SchemaCatalog, SchemaKind};
pub use smp::strategic_merge;
pub use ssa::{
    apply, apply_subresource, manager_from_user_agent, record_subresource_update, record_update,
    record_update_with_schema,
};

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
    /// The `Status` the API server answers with: 400 `BadRequest` with the message, 422
    /// `Invalid` with the generic message (the detail withheld), 413 for too many
    /// operations.
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
    /// The manager of the `metadata.managedFields` entry that owns the field.
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// The `apiVersion` of that entry (`autoscaling/v2`).
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
