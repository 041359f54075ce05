//! PATCH bodies, dispatched on their Content-Type.

use serde_json::Value;

use super::decode::{self, BodyFormat, StrictError};
use kube_apigen_core::Status;
use kube_apigen_core::schema::PatchType;

/// A decoded PATCH body. Applying it to the stored object is the server's business;
/// [`super::Call::decode_patched`] then decodes the result with `fieldValidation`.
#[derive(Clone, Debug, PartialEq)]
pub enum Patch {
    /// `application/json-patch+json`: a list of JSON Patch (RFC 6902) operations.
    Json(json_patch::Patch),
    /// `application/merge-patch+json`: a JSON merge patch (RFC 7386).
    Merge(Value),
    /// `application/strategic-merge-patch+json`: a strategic merge patch, merged by the
    /// schema's patch strategies and merge keys.
    StrategicMerge(Value),
    /// The applied configuration, as a JSON object (YAML bodies are converted).
    Apply(Value),
}

impl Patch {
    /// The patch's format.
    pub fn patch_type(&self) -> PatchType {
        match self {
            Patch::Json(_) => PatchType::Json,
            Patch::Merge(_) => PatchType::Merge,
            Patch::StrategicMerge(_) => PatchType::StrategicMerge,
            Patch::Apply(_) => PatchType::Apply,
        }
    }
}

/// The fields a JSON Patch operation may have.
const OPERATION_FIELDS: &[&str] = &["op", "path", "value", "from"];

/// Decodes a PATCH body. The strict errors are those of the patch itself (duplicate
/// fields; for JSON Patch, unknown and duplicate fields of the operations), which the API
/// server reports together with those of the patched object.
pub(crate) fn parse(
    body: &[u8],
    content_type: Option<&str>,
    allowed: &[PatchType],
) -> Result<(Patch, Vec<StrictError>), Status> {
    let patch_type =
        content_type.and_then(PatchType::from_content_type).filter(|t| allowed.contains(t)).ok_or_else(|| {
            let accepted: Vec<&str> = allowed.iter().map(|t| t.content_type()).collect();
            Status::unsupported_media_type(&accepted)
        })?;
    let bad_patch = |detail: String| Status::bad_request(format!("error decoding patch: {detail}"));
    match patch_type {
        PatchType::Json => {
            let scanned = decode::scan(body, BodyFormat::Json).map_err(bad_patch)?;
            let mut strict = Vec::new();
            if let Value::Array(operations) = &scanned.value {
                for (index, operation) in operations.iter().enumerate() {
                    if let Value::Object(fields) = operation {
                        for key in fields.keys().filter(|k| !OPERATION_FIELDS.contains(&k.as_str())) {
                            strict.push(StrictError::json_patch_unknown(&format!("[{index}].{key}")));
                        }
                    }
                    let prefix = format!("[{index}].");
                    for duplicate in &scanned.duplicates {
                        if duplicate.depth == 2 && duplicate.path.starts_with(&prefix) {
                            strict.push(StrictError::json_patch_duplicate(&duplicate.path));
                        }
                    }
                }
            }
            let patch = serde_json::from_value(scanned.value).map_err(|e| bad_patch(e.to_string()))?;
            Ok((Patch::Json(patch), strict))
        }
        PatchType::Merge | PatchType::StrategicMerge => {
            let scanned = decode::scan(body, BodyFormat::Json).map_err(bad_patch)?;
            if patch_type == PatchType::StrategicMerge && !scanned.value.is_object() {
                return Err(bad_patch("a strategic merge patch must be a JSON object".to_owned()));
            }
            let strict = scanned.duplicates.iter().map(|d| StrictError::duplicate(&d.path)).collect();
            let patch = if patch_type == PatchType::Merge {
                Patch::Merge(scanned.value)
            } else {
                Patch::StrategicMerge(scanned.value)
            };
            Ok((patch, strict))
        }
        PatchType::Apply => {
            let looks_like_json = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
            let format = if looks_like_json { BodyFormat::Json } else { BodyFormat::Yaml };
            let scanned =
                decode::scan(body, format).map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
            if !scanned.value.is_object() {
                return Err(Status::bad_request("error decoding YAML: the applied configuration must be an object"));
            }
            let strict = match format {
                BodyFormat::Json => scanned.duplicates.iter().map(|d| StrictError::duplicate(&d.path)).collect(),
                BodyFormat::Yaml => decode::yaml_duplicates(&scanned.duplicates).into_iter().collect(),
            };
            Ok((Patch::Apply(scanned.value), strict))
        }
    }
}
