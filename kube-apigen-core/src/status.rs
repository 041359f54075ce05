//! `meta.k8s.io/v1` Status: the body of every error response, and of some delete responses.
//!
//! The constructors build exactly what the Kubernetes API server sends for the same
//! situation (`k8s.io/apimachinery/pkg/api/errors` and the apiserver's handlers): code,
//! reason, message text and details. Empty strings are left out of the details, as Go's
//! `omitempty` does, so the core group never shows up as `"group":""`.

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::de::MapAccess;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Deserializer, Serialize};

use crate::field::FieldError;
use crate::go::fmt as gofmt;
use crate::{de, ser};

/// `metadata` of list responses and of `Status`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ListMeta {
    /// Deprecated by Kubernetes and no longer set by the API server.
    pub self_link: Option<String>,
    /// The version the list was read at, from which a client can watch it.
    pub resource_version: Option<String>,
    /// The `continue` token of a paginated list.
    pub continue_: Option<String>,
    /// How many items a paginated list has after this page, when the server can tell.
    pub remaining_item_count: Option<i64>,
}

impl ListMeta {
    /// Whether no field is set; it then serializes as `{}`.
    pub fn is_empty(&self) -> bool {
        *self == ListMeta::default()
    }
}

/// The `reason` values the API server uses (`metav1.StatusReason`).
pub mod reason {
    /// 401: the request has no valid credentials.
    pub const UNAUTHORIZED: &str = "Unauthorized";
    /// 403: the client may not do what it asked.
    pub const FORBIDDEN: &str = "Forbidden";
    /// 404: the object or resource does not exist.
    pub const NOT_FOUND: &str = "NotFound";
    /// 409: an object of that name already exists.
    pub const ALREADY_EXISTS: &str = "AlreadyExists";
    /// 409: the request conflicts with the stored object, e.g. a stale `resourceVersion`.
    pub const CONFLICT: &str = "Conflict";
    /// 410: what was asked for is no longer available.
    pub const GONE: &str = "Gone";
    /// 422: the object breaks validation rules; the causes are its field errors.
    pub const INVALID: &str = "Invalid";
    /// 500: the server could not complete the request in time; the client may retry.
    pub const SERVER_TIMEOUT: &str = "ServerTimeout";
    /// 504: the request did not complete in the time it allowed.
    pub const TIMEOUT: &str = "Timeout";
    /// 429: the client sent too many requests; details may say when to retry.
    pub const TOO_MANY_REQUESTS: &str = "TooManyRequests";
    /// 400: the request itself is malformed.
    pub const BAD_REQUEST: &str = "BadRequest";
    /// 405: the resource does not support the action.
    pub const METHOD_NOT_ALLOWED: &str = "MethodNotAllowed";
    /// 406: no media type the client accepts can represent the response.
    pub const NOT_ACCEPTABLE: &str = "NotAcceptable";
    /// 413: the request body is too large.
    pub const REQUEST_ENTITY_TOO_LARGE: &str = "RequestEntityTooLarge";
    /// 415: the request body is in a media type the server does not read.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "UnsupportedMediaType";
    /// 500: an unexpected failure of the server.
    pub const INTERNAL_ERROR: &str = "InternalError";
    /// 410: a `resourceVersion` or `continue` token older than the server still serves.
    pub const EXPIRED: &str = "Expired";
    /// 503: the server cannot serve the request for now.
    pub const SERVICE_UNAVAILABLE: &str = "ServiceUnavailable";
}

/// The result of an operation that returns no object: every error, and some deletes.
///
/// Always serializes `kind: "Status"` and `apiVersion: "v1"` first and `metadata` (as
/// `{}` when empty), then the set optional fields, in the API server's order:
/// `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"...",
/// "reason":"NotFound","details":{...},"code":404}`. `kind` and `apiVersion` are fixed, so
/// they are not fields; on input they are accepted and ignored, like other unknown fields.
///
/// The fields live in a [`StatusFields`] behind one pointer, reached through `Deref`: errors
/// are built on the failure path only, and a `Result<T, Status>` should not carry the
/// whole status on the success path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Status(Box<StatusFields>);

/// The fields of a [`Status`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatusFields {
    /// List metadata; empty in error responses.
    pub metadata: ListMeta,
    /// `"Success"` or `"Failure"`.
    pub status: Option<String>,
    /// Human-readable description; what `kubectl` prints.
    pub message: Option<String>,
    /// Machine-readable reason, one of [`reason`]; `None` means unknown.
    pub reason: Option<String>,
    /// The object concerned and the causes; which fields are set depends on the reason.
    pub details: Option<StatusDetails>,
    /// The HTTP status code; see [`Status::code`] for the one to answer with.
    pub code: Option<i32>,
}

/// Extended data of a [`Status`]; which fields are set depends on the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatusDetails {
    /// The name of the object concerned.
    pub name: Option<String>,
    /// The API group of the object concerned; `None` for the core group.
    pub group: Option<String>,
    /// A kind for `Invalid`, but the plural *resource* for most other reasons
    /// (`NotFound`, `AlreadyExists`, `Conflict`, ...), as in Kubernetes.
    pub kind: Option<String>,
    /// The UID of the object concerned, when known.
    pub uid: Option<String>,
    /// The individual causes, e.g. one per field error of an `Invalid` status.
    pub causes: Vec<StatusCause>,
    /// How long a client should wait before retrying, for reasons that allow it.
    pub retry_after_seconds: Option<i32>,
}

/// One cause of a failure, e.g. one field error of an `Invalid` status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatusCause {
    /// E.g. `FieldValueRequired`.
    pub reason: Option<String>,
    /// What went wrong, for a human; for a field error, the message without the field.
    pub message: Option<String>,
    /// The field path, e.g. `spec.maxReplicas`.
    pub field: Option<String>,
}

// The wire form of these types, written out as generated models' is (`de`, `ser`), so that
// a crate of models compiles no proc macro.

impl Serialize for ListMeta {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_map(None)?;
        ser::optional(&mut object, "selfLink", &self.self_link)?;
        ser::optional(&mut object, "resourceVersion", &self.resource_version)?;
        ser::optional(&mut object, "continue", &self.continue_)?;
        ser::optional(&mut object, "remainingItemCount", &self.remaining_item_count)?;
        ser::end(object)
    }
}

impl de::Object for ListMeta {
    const NAME: &'static str = "ListMeta";
    const FIELDS: &'static [&'static str] = &["selfLink", "resourceVersion", "continue", "remainingItemCount"];

    fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
        match index {
            0 => de::read(map, &mut self.self_link),
            1 => de::read(map, &mut self.resource_version),
            2 => de::read(map, &mut self.continue_),
            _ => de::read(map, &mut self.remaining_item_count),
        }
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        de::object::<_, StatusFields>(deserializer).map(Status::from)
    }
}

impl de::Object for StatusFields {
    const NAME: &'static str = "StatusFields";
    const FIELDS: &'static [&'static str] = &["metadata", "status", "message", "reason", "details", "code"];

    fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
        match index {
            0 => de::read(map, &mut self.metadata),
            1 => de::read(map, &mut self.status),
            2 => de::read(map, &mut self.message),
            3 => de::read(map, &mut self.reason),
            4 => de::read(map, &mut self.details),
            _ => de::read(map, &mut self.code),
        }
    }
}

impl Serialize for StatusDetails {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_map(None)?;
        ser::optional(&mut object, "name", &self.name)?;
        ser::optional(&mut object, "group", &self.group)?;
        ser::optional(&mut object, "kind", &self.kind)?;
        ser::optional(&mut object, "uid", &self.uid)?;
        if !self.causes.is_empty() {
            ser::field(&mut object, "causes", &self.causes)?;
        }
        ser::optional(&mut object, "retryAfterSeconds", &self.retry_after_seconds)?;
        ser::end(object)
    }
}

impl de::Object for StatusDetails {
    const NAME: &'static str = "StatusDetails";
    const FIELDS: &'static [&'static str] = &["name", "group", "kind", "uid", "causes", "retryAfterSeconds"];

    fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
        match index {
            0 => de::read(map, &mut self.name),
            1 => de::read(map, &mut self.group),
            2 => de::read(map, &mut self.kind),
            3 => de::read(map, &mut self.uid),
            4 => de::read(map, &mut self.causes),
            _ => de::read(map, &mut self.retry_after_seconds),
        }
    }
}

impl Serialize for StatusCause {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_map(None)?;
        ser::optional(&mut object, "reason", &self.reason)?;
        ser::optional(&mut object, "message", &self.message)?;
        ser::optional(&mut object, "field", &self.field)?;
        ser::end(object)
    }
}

impl de::Object for StatusCause {
    const NAME: &'static str = "StatusCause";
    const FIELDS: &'static [&'static str] = &["reason", "message", "field"];

    fn read_field<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
        match index {
            0 => de::read(map, &mut self.reason),
            1 => de::read(map, &mut self.message),
            _ => de::read(map, &mut self.field),
        }
    }
}

macro_rules! deserialize_objects {
    ($($name:ty),*) => {$(
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                de::object(deserializer)
            }
        }
    )*};
}

deserialize_objects!(ListMeta, StatusDetails, StatusCause);

impl From<&FieldError> for StatusCause {
    /// The cause Kubernetes reports for a field error: its reason, its message without the
    /// field, and the field.
    fn from(error: &FieldError) -> Self {
        StatusCause {
            reason: Some(error.error_type.reason().to_owned()),
            message: non_empty(&error.body()),
            field: non_empty(&error.field),
        }
    }
}

/// Go's `omitempty` for strings.
fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// `schema.GroupResource.String()` / `GroupKind.String()`: `name.group`, or `name` for the
/// core group.
fn qualified(name: &str, group: &str) -> String {
    if group.is_empty() { name.to_owned() } else { format!("{name}.{group}") }
}

impl Status {
    /// The `kind` every Status is sent with.
    pub const KIND: &'static str = "Status";
    /// The `apiVersion` every Status is sent with.
    pub const API_VERSION: &'static str = "v1";
    /// `status` of a successful operation.
    pub const SUCCESS: &'static str = "Success";
    /// `status` of a failed operation.
    pub const FAILURE: &'static str = "Failure";
    /// The detail of the 409 [`Status::conflict`] the API server sends when an update's
    /// `metadata.resourceVersion` is not the stored one.
    pub const OPTIMISTIC_LOCK_MESSAGE: &'static str =
        "the object has been modified; please apply your changes to the latest version and try again";

    /// A failure with the given code, reason and message, and no details.
    pub fn failure(code: u16, reason: &str, message: impl Into<String>) -> Self {
        Status::from(StatusFields {
            status: Some(Self::FAILURE.to_owned()),
            message: non_empty(&message.into()),
            reason: non_empty(reason),
            code: Some(i32::from(code)),
            ..StatusFields::default()
        })
    }

    fn with_details(mut self, details: StatusDetails) -> Self {
        self.details = Some(details);
        self
    }

    /// Details naming a resource: `{name, group, kind: <plural resource>}`.
    fn resource_details(group: &str, resource: &str, name: &str) -> StatusDetails {
        StatusDetails {
            name: non_empty(name),
            group: non_empty(group),
            kind: non_empty(resource),
            ..StatusDetails::default()
        }
    }

    /// `{"status":"Success"}`: the body of a delete that completed, when there is nothing
    /// more to say. See [`Status::deleted`] for what the generic registry sends.
    pub fn success() -> Self {
        Status::from(StatusFields { status: Some(Self::SUCCESS.to_owned()), ..StatusFields::default() })
    }

    /// What the API server's generic registry answers (200) to a delete that removed the
    /// object immediately, for resources that do not return the deleted object:
    /// `status: Success` and details `{name, group, kind: <plural resource>, uid}`, no code.
    pub fn deleted(group: &str, resource: &str, name: &str, uid: &str) -> Self {
        let mut details = Self::resource_details(group, resource, name);
        details.uid = non_empty(uid);
        Self::success().with_details(details)
    }

    /// 404 `NotFound`: `<resource>.<group> "<name>" not found`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        let message = format!("{} {} not found", qualified(resource, group), gofmt::quote(name));
        Self::failure(404, reason::NOT_FOUND, message).with_details(Self::resource_details(group, resource, name))
    }

    /// 409 `AlreadyExists`: `<resource>.<group> "<name>" already exists`.
    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        let message = format!("{} {} already exists", qualified(resource, group), gofmt::quote(name));
        Self::failure(409, reason::ALREADY_EXISTS, message).with_details(Self::resource_details(group, resource, name))
    }

    /// 409 `Conflict`: `Operation cannot be fulfilled on <resource>.<group> "<name>": <detail>`.
    ///
    /// For a stale `metadata.resourceVersion` the API server's detail is
    /// [`Status::OPTIMISTIC_LOCK_MESSAGE`].
    pub fn conflict(group: &str, resource: &str, name: &str, detail: impl fmt::Display) -> Self {
        let message =
            format!("Operation cannot be fulfilled on {} {}: {detail}", qualified(resource, group), gofmt::quote(name));
        Self::failure(409, reason::CONFLICT, message).with_details(Self::resource_details(group, resource, name))
    }

    /// 400 `BadRequest` with the message as given.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::failure(400, reason::BAD_REQUEST, message)
    }

    /// 401 `Unauthorized`; an empty message becomes `not authorized`.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        let message = message.into();
        let message = if message.is_empty() { "not authorized".to_owned() } else { message };
        Self::failure(401, reason::UNAUTHORIZED, message)
    }

    /// 403 `Forbidden`: `<resource>.<group> "<name>" is forbidden: <detail>`, or
    /// `<resource>.<group> is forbidden: <detail>` without a name, or `forbidden: <detail>`
    /// without a resource.
    pub fn forbidden(group: &str, resource: &str, name: &str, detail: impl fmt::Display) -> Self {
        let message = if group.is_empty() && resource.is_empty() {
            format!("forbidden: {detail}")
        } else if name.is_empty() {
            format!("{} is forbidden: {detail}", qualified(resource, group))
        } else {
            format!("{} {} is forbidden: {detail}", qualified(resource, group), gofmt::quote(name))
        };
        Self::failure(403, reason::FORBIDDEN, message).with_details(Self::resource_details(group, resource, name))
    }

    /// 405 `MethodNotAllowed`: `<action> is not supported on resources of kind
    /// "<resource>.<group>"`, details `{group, kind: <plural resource>}`. `action` is the
    /// verb as the API server names it, e.g. `create`, `update`, `delete`, `deletecollection`.
    pub fn method_not_allowed(group: &str, resource: &str, action: &str) -> Self {
        let message =
            format!("{action} is not supported on resources of kind {}", gofmt::quote(&qualified(resource, group)));
        Self::failure(405, reason::METHOD_NOT_ALLOWED, message)
            .with_details(Self::resource_details(group, resource, ""))
    }

    /// 404 for a path no route serves, as the API server's router answers it:
    /// `the server could not find the requested resource`, with `details: {}`.
    pub fn route_not_found() -> Self {
        Self::failure(404, reason::NOT_FOUND, "the server could not find the requested resource")
            .with_details(StatusDetails::default())
    }

    /// 405 for an HTTP method a path does not serve, as the API server's router answers it:
    /// `the server does not allow this method on the requested resource`, with `details: {}`.
    pub fn route_method_not_allowed() -> Self {
        Self::failure(
            405,
            reason::METHOD_NOT_ALLOWED,
            "the server does not allow this method on the requested resource",
        )
        .with_details(StatusDetails::default())
    }

    /// 410 `Gone` with the message as given (apimachinery's `NewGone`, deprecated there).
    ///
    /// For a watch or list whose `resourceVersion` is too old the current API server sends
    /// reason `Expired`, not `Gone`: use [`Status::too_old_resource_version`] or
    /// [`Status::expired`]. Clients (client-go's reflector) check for `Expired` and `Gone`
    /// alike.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::failure(410, reason::GONE, message)
    }

    /// 410 `Expired` with the message as given (apimachinery's `NewResourceExpired`).
    pub fn expired(message: impl Into<String>) -> Self {
        Self::failure(410, reason::EXPIRED, message)
    }

    /// 410 `Expired`: `too old resource version: <requested> (<oldest>)`, what the watch
    /// cache answers when a watch asks for a `resourceVersion` it no longer holds; `oldest`
    /// is the oldest version it can still serve from. In a watch stream it is sent as an
    /// `ERROR` event carrying this Status.
    pub fn too_old_resource_version(requested: u64, oldest: u64) -> Self {
        Self::expired(format!("too old resource version: {requested} ({oldest})"))
    }

    /// 413 `RequestEntityTooLarge`: `Request entity too large: <message>`.
    pub fn request_entity_too_large(message: impl fmt::Display) -> Self {
        let message = format!("Request entity too large: {message}");
        Self::failure(413, reason::REQUEST_ENTITY_TOO_LARGE, message)
    }

    /// 415 `UnsupportedMediaType`: `the body of the request was in an unknown format -
    /// accepted media types include: <accepted, joined by ", ">`. The API server names the
    /// types it accepts, not the one it was sent.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        let message = format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        );
        Self::failure(415, reason::UNSUPPORTED_MEDIA_TYPE, message)
    }

    /// 406 `NotAcceptable`: `only the following media types are accepted: <accepted>`.
    pub fn not_acceptable(accepted: &[&str]) -> Self {
        let message = format!("only the following media types are accepted: {}", accepted.join(", "));
        Self::failure(406, reason::NOT_ACCEPTABLE, message)
    }

    /// 500 `InternalError`: `Internal error occurred: <message>`, with one cause carrying
    /// the bare message.
    pub fn internal_error(message: impl fmt::Display) -> Self {
        let message = message.to_string();
        let details = StatusDetails {
            causes: vec![StatusCause { message: non_empty(&message), ..StatusCause::default() }],
            ..StatusDetails::default()
        };
        Self::failure(500, reason::INTERNAL_ERROR, format!("Internal error occurred: {message}")).with_details(details)
    }

    /// 422 `Invalid`, as `kubectl` shows it:
    /// `HorizontalPodAutoscaler.autoscaling "web" is invalid: [spec.maxReplicas: Invalid
    /// value: 1: must be greater than or equal to 2, spec.scaleTargetRef.name: Required value]`.
    ///
    /// As in apimachinery's `NewInvalid`: the kind is qualified by the group unless it is
    /// the core group (`Pod "x" is invalid: ...`); errors whose full text (`field: body`)
    /// repeats an earlier one are left out of the message, and a single remaining error is
    /// not bracketed; with no errors the message is just `Kind "name" is invalid`. Every
    /// error, repeated or not, becomes a cause, and the details carry
    /// `{name, group, kind: <Kind>}`.
    pub fn invalid(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> Self {
        let mut message = format!("{} {} is invalid", qualified(kind, group), gofmt::quote(name));
        let mut seen: Vec<String> = Vec::with_capacity(errors.len());
        for error in errors {
            let text = error.to_string();
            if !seen.contains(&text) {
                seen.push(text);
            }
        }
        match seen.as_slice() {
            [] => {}
            [only] => {
                message.push_str(": ");
                message.push_str(only);
            }
            all => {
                message.push_str(": [");
                message.push_str(&all.join(", "));
                message.push(']');
            }
        }
        let details = StatusDetails {
            name: non_empty(name),
            group: non_empty(group),
            kind: non_empty(kind),
            causes: errors.iter().map(StatusCause::from).collect(),
            ..StatusDetails::default()
        };
        Self::failure(422, reason::INVALID, message).with_details(details)
    }

    /// The HTTP status code to answer with: `code` when it is a valid HTTP code, otherwise
    /// 200 for a success and 500 for anything else, as the API server fills in a missing code.
    pub fn code(&self) -> u16 {
        match self.code {
            Some(code @ 100..=599) => code as u16,
            _ if self.status.as_deref() == Some(Self::SUCCESS) => 200,
            _ => 500,
        }
    }

    /// Whether `status` is `Success`.
    pub fn is_success(&self) -> bool {
        self.status.as_deref() == Some(Self::SUCCESS)
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let optional = [
            self.status.is_some(),
            self.message.is_some(),
            self.reason.is_some(),
            self.details.is_some(),
            self.code.is_some(),
        ];
        let len = 3 + optional.iter().filter(|set| **set).count();
        let mut s = serializer.serialize_struct("Status", len)?;
        s.serialize_field("kind", Self::KIND)?;
        s.serialize_field("apiVersion", Self::API_VERSION)?;
        s.serialize_field("metadata", &self.metadata)?;
        if let Some(status) = &self.status {
            s.serialize_field("status", status)?;
        }
        if let Some(message) = &self.message {
            s.serialize_field("message", message)?;
        }
        if let Some(reason) = &self.reason {
            s.serialize_field("reason", reason)?;
        }
        if let Some(details) = &self.details {
            s.serialize_field("details", details)?;
        }
        if let Some(code) = &self.code {
            s.serialize_field("code", code)?;
        }
        s.end()
    }
}

impl From<StatusFields> for Status {
    fn from(fields: StatusFields) -> Self {
        Status(Box::new(fields))
    }
}

impl Deref for Status {
    type Target = StatusFields;

    fn deref(&self) -> &StatusFields {
        &self.0
    }
}

impl DerefMut for Status {
    fn deref_mut(&mut self) -> &mut StatusFields {
        &mut self.0
    }
}

/// The message, as `StatusError.Error()` returns it (the reason if there is no message).
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.message, &self.reason) {
            (Some(message), _) => f.write_str(message),
            (None, Some(reason)) => f.write_str(reason),
            (None, None) => write!(f, "status code {}", self.code()),
        }
    }
}

impl std::error::Error for Status {}
