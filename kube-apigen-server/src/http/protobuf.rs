//! Protobuf bodies: request bodies decoded from their envelope, responses and watch
//! events encoded into one, as the API server's protobuf serializer does.

use bytes::Bytes;

use super::decode::summarize;
use kube_apigen_core::go::fmt as gofmt;
use kube_apigen_core::protobuf::{self, Payload};
use kube_apigen_core::{ResourceInfo, Status};

/// Whether a `Content-Type` names Kubernetes' protobuf encoding.
pub(crate) fn is_protobuf(content_type: &str) -> bool {
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    media_type.eq_ignore_ascii_case(protobuf::CONTENT_TYPE)
}

/// Decodes a protobuf request body into a `T`. As in the API server, data that is not an
/// envelope is 400 `the object provided is unrecognized (must be of type T): ...`, and an
/// object that does not decode is 400 `Kind in version "v" cannot be handled as a T: ...`
/// (which is also what a type without a message, a custom resource, answers).
pub(crate) fn decode_body<T: Payload + serde::de::DeserializeOwned>(
    body: &[u8],
    resource: &ResourceInfo,
) -> Result<T, Status> {
    let target = T::GO_TYPE;
    let envelope = protobuf::decode_envelope(body).map_err(|e| {
        Status::bad_request(format!(
            "the object provided is unrecognized (must be of type {target}): {e} ({})",
            summarize(body)
        ))
    })?;
    let kind = if envelope.kind.is_empty() { target } else { envelope.kind.as_str() };
    let version = match envelope.api_version.rsplit_once('/') {
        Some((_, version)) => version,
        None if envelope.api_version.is_empty() => resource.version,
        None => envelope.api_version.as_str(),
    };
    let cannot_handle = |detail: String| {
        Status::bad_request(format!(
            "{kind} in version {} cannot be handled as a {target}: {detail}",
            gofmt::quote(version)
        ))
    };
    let Some(codec) = T::PROTOBUF else { return Err(cannot_handle(not_marshalable::<T>(resource.list_kind))) };
    if let Some((_, expected)) =
        codec.type_meta.filter(|(_, expected)| !envelope.kind.is_empty() && envelope.kind != *expected)
    {
        return Err(cannot_handle(format!("the body holds a {kind}, not a {expected}")));
    }
    (codec.decode)(&envelope).map_err(|e| cannot_handle(e.to_string()))
}

/// `value` in an envelope naming its kind (the resource's, for a type that names none);
/// 406 `NotAcceptable` for a type without a message, as the API server answers for
/// custom resources.
pub(crate) fn encode<T: Payload>(value: &T, resource: Option<&ResourceInfo>) -> Result<Vec<u8>, Status> {
    let Some(codec) = T::PROTOBUF else {
        let go_type = not_marshalable::<T>(resource.map_or("", |r| r.list_kind));
        return Err(Status::failure(406, kube_apigen_core::status::reason::NOT_ACCEPTABLE, go_type));
    };
    let (api_version, kind) = match (codec.type_meta, resource) {
        (Some((api_version, kind)), _) => (api_version.to_owned(), kind),
        (None, Some(resource)) if resource.group.is_empty() => (resource.version.to_owned(), resource.kind),
        (None, Some(resource)) => (format!("{}/{}", resource.group, resource.version), resource.kind),
        (None, None) => return Err(Status::internal_error("unable to encode the response: no kind to name")),
    };
    Ok(protobuf::encode_envelope(&api_version, kind, &(codec.encode)(value)))
}

/// A length-prefixed `WatchEvent` frame of a protobuf watch stream.
pub(crate) fn watch_frame<T: Payload>(event_type: &str, object: &T, resource: &ResourceInfo) -> Result<Bytes, Status> {
    Ok(Bytes::from(protobuf::watch_frame(event_type, &encode(object, Some(resource))?)))
}

/// The API server's words for an object its protobuf serializer cannot write: a custom
/// resource (`unstructured.Unstructured`) or a list of them (a `T` named `list_kind`).
fn not_marshalable<T: Payload>(list_kind: &str) -> String {
    let go_type = if T::GO_TYPE == list_kind { "*unstructured.UnstructuredList" } else { "*unstructured.Unstructured" };
    format!(
        "object {go_type} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message"
    )
}
