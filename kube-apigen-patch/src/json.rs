//! RFC 6902 JSON Patch and RFC 7386 JSON Merge Patch.

use serde_json::Value;

use super::PatchError;

/// The most operations a JSON Patch may have (the API server's `maxJSONPatchOperations`).
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// Applies an RFC 6902 JSON Patch (`application/json-patch+json`).
///
/// Operations apply in order; the first that fails (a `test` whose value differs, a path
/// that does not exist, ...) fails the whole patch with [`PatchError::JsonPatchFailed`],
/// which the API server answers with 422 and a generic message (the detail is kept for
/// logs). More than [`MAX_JSON_PATCH_OPERATIONS`] operations are refused with 413.
///
/// A `test` of `null` passes where the member is missing from an existing object, as
/// the API server's JSON Patch library has it: kube-runtime's finalizer helper adds the
/// first finalizer after testing `/metadata/finalizers` for `null`.
pub fn json_patch(original: &Value, patch: &json_patch::Patch) -> Result<Value, PatchError> {
    if patch.0.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(PatchError::TooManyOperations(patch.0.len()));
    }
    let mut document = original.clone();
    for (index, operation) in patch.0.iter().enumerate() {
        if let json_patch::PatchOperation::Test(test) = operation
            && test.value.is_null()
            && is_missing_member(&document, &test.path)
        {
            continue;
        }
        json_patch::patch(&mut document, std::slice::from_ref(operation))
            .map_err(|error| PatchError::JsonPatchFailed(format!("operation {index}: {}", error.kind)))?;
    }
    Ok(document)
}

/// Whether `path` names a member absent from an object that exists.
fn is_missing_member(document: &Value, path: &json_patch::jsonptr::Pointer) -> bool {
    let Some((parent, member)) = path.split_back() else { return false };
    let parent = document.pointer(parent.as_str()).and_then(Value::as_object);
    parent.is_some_and(|object| !object.contains_key(member.decoded().as_ref()))
}

/// Applies an RFC 7386 JSON Merge Patch (`application/merge-patch+json`): objects merge
/// key by key, `null` deletes a key, anything else (arrays included) replaces. A patch
/// that is not an object replaces the whole document; see [`check_merge_patch`] for the
/// bodies the API server refuses up front.
pub fn merge_patch(original: &Value, patch: &Value) -> Value {
    let mut document = original.clone();
    json_patch::merge(&mut document, patch);
    document
}

/// The merge patches the API server refuses before merging (evanphx/json-patch's
/// `ErrBadJSONPatch`, a 400 `Invalid JSON Patch`): `null` and scalars. Arrays are
/// accepted there and make the document an array, which then fails to decode.
pub fn check_merge_patch(patch: &Value) -> Result<(), PatchError> {
    match patch {
        Value::Object(_) | Value::Array(_) => Ok(()),
        _ => Err(PatchError::BadRequest("Invalid JSON Patch".to_owned())),
    }
}
