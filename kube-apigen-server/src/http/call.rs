//! [`serve`] and the [`Call`] it hands to a generated handler.

use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::{Body, HttpBody as _};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::{FutureExt, StreamExt};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::accept;
use super::authz::{Admitted, admit};
use super::decode::{self, BodyFormat, DecodeError, StrictError};
use super::negotiate::{self, ACCEPTED, ACCEPTED_STREAM, Format, Negotiated, Output, Transform};
use super::patch::{self, Patch};
use super::protobuf;
use super::table::{self, IncludeObject, TableConvertor, TableOptions};
use super::warning::Warnings;
use super::watch::{self, Encoder, WatchStream};
use super::{Config, Context, FieldValidation, Query, UserInfo};
use kube_apigen_core::field::{FieldError, Path};
use kube_apigen_core::protobuf::Payload;
use kube_apigen_core::schema::PatchType;
use kube_apigen_core::{ResourceInfo, Status};
use kube_apigen_validation::Validate;

/// The message of the 500 a panicking handler is answered with (the API server's).
pub(crate) const PANIC_MESSAGE: &str = "This request caused apiserver to panic. Look in the logs for details.";

/// Strict errors beyond this many are dropped, as Go's strict decoder does.
const MAX_STRICT_ERRORS: usize = 100;

/// A response built by [`Call::reply`] or [`Call::watch`].
#[derive(Debug)]
pub struct Reply(Response);

impl Reply {
    /// Wraps a response built by hand.
    pub fn from_response(response: Response) -> Self {
        Reply(response)
    }

    /// The response's status code.
    pub fn status(&self) -> StatusCode {
        self.0.status()
    }

    /// The response's headers.
    pub fn headers(&self) -> &HeaderMap {
        self.0.headers()
    }
}

impl From<Response> for Reply {
    fn from(response: Response) -> Self {
        Reply(response)
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        self.0
    }
}

/// Handles one request the way the API server does, around `handler`:
///
/// 1. authenticates and authorizes it ([`super::admit`]: 401, 403), unless the router's
///    [`super::guard`] did already;
/// 2. negotiates the response format from `Accept` (406 `NotAcceptable` when nothing
///    acceptable is offered);
/// 3. reads the body, at most `config.max_body_bytes` (413 `RequestEntityTooLarge`);
/// 4. runs `handler`; its `Err(status)` becomes the response, a `Status` in JSON or in
///    YAML when `Accept` prefers it; a panic becomes 500 `InternalError`;
/// 5. adds the `Warning` headers collected on the way (first the resource's deprecation
///    warning, if any) to whatever the response is.
///
/// `handler` gets the [`Call`] by value: `async move |mut call| { ... }` or
/// `|mut call| async move { ... }`.
pub fn serve<F, Fut>(
    request: Request,
    config: &Config,
    resource: &'static ResourceInfo,
    handler: F,
) -> impl Future<Output = Response> + Send + use<F, Fut>
where
    F: FnOnce(Call) -> Fut + Send,
    Fut: Future<Output = Result<Reply, Status>> + Send,
{
    // What can be decided before the body is read is decided here, so that the future,
    // which the router boxes for every request, holds only what the rest needs.
    let (mut parts, body) = request.into_parts();
    let Negotiated { output, error_format } = negotiate::negotiate(accept::header(&parts.headers));
    // A route mounted without the guard is admitted here, once the future runs.
    let admission = match parts.extensions.get::<Admitted>() {
        Some(admitted) => Ok(admitted.user.clone()),
        None => Err((Arc::clone(&config.authenticator), Arc::clone(&config.authorizer))),
    };
    let limit = config.max_body_bytes;
    let table = config.tables.get(&(resource.group, resource.plural)).cloned();
    let mut warnings = Warnings::default();
    if let Some(deprecation) = resource.deprecation_warning {
        warnings.add(deprecation);
    }
    let warnings = Arc::new(Mutex::new(warnings));
    let call_warnings = Arc::clone(&warnings);
    async move {
        let result = async move {
            let user = match admission {
                Ok(user) => user,
                Err((authenticator, authorizer)) => admit(&mut parts, &*authenticator, &*authorizer).await?,
            };
            let output = output.ok_or_else(|| Status::not_acceptable(ACCEPTED))?;
            let call = Call(Box::new(CallState {
                // Shared with every `Context` of the call rather than copied into each.
                headers: Arc::new(std::mem::take(&mut parts.headers)),
                parts,
                body: Bytes::new(),
                resource,
                table,
                user,
                output,
                warnings: call_warnings,
                pending: Vec::new(),
            }));
            run(call, body, limit, handler).await
        }
        .await;
        let mut response = match result {
            Ok(Reply(response)) => response,
            Err(status) => status_response(&status, error_format),
        };
        lock(&warnings).write(response.headers_mut());
        response
    }
}

/// Reads the body into `call` (413 beyond `limit`), then runs `handler` on it (a panic is
/// 500).
async fn run<F, Fut>(mut call: Call, body: Body, limit: usize, handler: F) -> Result<Reply, Status>
where
    F: FnOnce(Call) -> Fut + Send,
    Fut: Future<Output = Result<Reply, Status>> + Send,
{
    call.0.body = collect(body, limit, &call.0.headers).await?;
    AssertUnwindSafe(async move { handler(call).await })
        .catch_unwind()
        .await
        .unwrap_or_else(|_| Err(Status::internal_error(PANIC_MESSAGE)))
}

async fn collect(body: Body, limit: usize, headers: &HeaderMap) -> Result<Bytes, Status> {
    let too_large = || Status::request_entity_too_large(format_args!("limit is {limit}"));
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    if body.is_end_stream() {
        return Ok(Bytes::new());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Err(error) => Err(Status::bad_request(format!("unable to read the request body: {error}"))),
    }
}

fn lock(warnings: &Mutex<Warnings>) -> MutexGuard<'_, Warnings> {
    warnings.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Serializes `value` (sorted keys for YAML, as the API server's YAML output has them;
/// protobuf in an envelope naming its kind, or `resource`'s). A type without a protobuf
/// message is 406, anything else that fails 500.
fn encode<T: Payload>(value: &T, format: Format, resource: Option<&ResourceInfo>) -> Result<Vec<u8>, Status> {
    let failed = |e: String| Status::internal_error(format!("unable to encode the response: {e}"));
    match format {
        Format::Json => serde_json::to_vec(value).map_err(|e| failed(e.to_string())),
        Format::Yaml => {
            let value = serde_json::to_value(value).map_err(|e| failed(e.to_string()))?;
            serde_saphyr::to_string(&value).map(String::into_bytes).map_err(|e| failed(e.to_string()))
        }
        Format::Protobuf => protobuf::encode(value, resource),
    }
}

fn response(code: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = code;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// The response carrying `status`, with its code, in `format` (JSON if YAML fails).
pub(crate) fn status_response(status: &Status, format: Format) -> Response {
    let code = StatusCode::from_u16(status.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match encode(status, format, None) {
        Ok(body) => response(code, format.content_type(), body),
        Err(_) => response(code, Format::Json.content_type(), serde_json::to_vec(status).unwrap_or_default()),
    }
}

/// One request being handled: its parts, its body, what was negotiated, and the
/// warnings collected for it. Methods decoding the body take `&mut self`.
///
/// Boxed, so that the futures holding it (one boxed per request) stay small.
pub struct Call(Box<CallState>);

struct CallState {
    /// The request line and extensions; its headers are in `headers`.
    parts: Parts,
    headers: Arc<HeaderMap>,
    body: Bytes,
    resource: &'static ResourceInfo,
    /// The resource's own table convertor ([`Config::tables`]).
    table: Option<Arc<dyn TableConvertor>>,
    user: Option<UserInfo>,
    output: Output,
    warnings: Arc<Mutex<Warnings>>,
    /// Strict errors of a patch body, reported with those of the patched object.
    pending: Vec<StrictError>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("method", &self.0.parts.method)
            .field("uri", &self.0.parts.uri)
            .field("resource", &self.0.resource.plural)
            .finish_non_exhaustive()
    }
}

impl Call {
    /// What the server's methods get to know: user, `dryRun=All`, `fieldManager`,
    /// `fieldValidation`, headers.
    pub fn context(&self) -> Context {
        let query = self.query();
        Context {
            user: self.0.user.clone(),
            dry_run: query.values("dryRun").any(|v| v == "All"),
            field_manager: query.string("fieldManager"),
            field_validation: self.field_validation(),
            headers: Arc::clone(&self.0.headers),
        }
    }

    /// The query parameters.
    pub fn query(&self) -> Query<'_> {
        Query::parse(self.0.parts.uri.query().unwrap_or(""))
    }

    /// The request's HTTP method.
    pub fn method(&self) -> &Method {
        &self.0.parts.method
    }

    /// The request's URI: path and query.
    pub fn uri(&self) -> &Uri {
        &self.0.parts.uri
    }

    /// The request's headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.0.headers
    }

    /// The authenticated user; `None` when anonymous.
    pub fn user(&self) -> Option<&UserInfo> {
        self.0.user.as_ref()
    }

    /// The resource the request's route serves.
    pub fn resource(&self) -> &'static ResourceInfo {
        self.0.resource
    }

    /// The raw request body.
    pub fn raw_body(&self) -> &Bytes {
        &self.0.body
    }

    /// The patch type the request's `Content-Type` names, before the body is decoded (the
    /// patch options are checked first, as Kubernetes does).
    pub fn patch_type(&self) -> Option<PatchType> {
        let content_type = self.0.headers.get(axum::http::header::CONTENT_TYPE)?.to_str().ok()?;
        PatchType::from_content_type(content_type)
    }

    /// The `fieldValidation` directive of the request.
    pub fn field_validation(&self) -> FieldValidation {
        FieldValidation::from_param(self.query().get("fieldValidation"))
    }

    /// Adds a `Warning: 299 - "<text>"` header to the response, whatever it turns out to be.
    pub fn warn(&self, text: impl Into<String>) {
        lock(&self.0.warnings).add(text);
    }

    /// 422 `<kind>.meta.k8s.io "" is invalid: ...` when the options (`CreateOptions`,
    /// `ListOptions`, ...) have errors, as the API server validates them.
    pub fn check_options(&self, kind: &str, errors: impl AsRef<[FieldError]>) -> Result<(), Status> {
        let errors = errors.as_ref();
        if errors.is_empty() { Ok(()) } else { Err(Status::invalid(kind, "meta.k8s.io", "", errors)) }
    }

    fn body_format(&self) -> Result<BodyFormat, Status> {
        let content_type = self.0.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let media_type = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        match media_type.as_str() {
            "" | "*/*" | "application/json" => Ok(BodyFormat::Json),
            "application/yaml" => Ok(BodyFormat::Yaml),
            _ => Err(Status::unsupported_media_type(ACCEPTED)),
        }
    }

    /// Reports strict errors as `fieldValidation` says: nothing, warnings, or `Err` with
    /// the `strict decoding error: ...` text for `error` to wrap.
    fn field_problems(&self, mut strict: Vec<StrictError>, error: impl FnOnce(String) -> Status) -> Result<(), Status> {
        strict.truncate(MAX_STRICT_ERRORS);
        match self.field_validation() {
            FieldValidation::Ignore => Ok(()),
            FieldValidation::Warn => {
                let mut warnings = lock(&self.0.warnings);
                for problem in strict {
                    for warning in problem.warnings {
                        warnings.add(warning);
                    }
                }
                Ok(())
            }
            FieldValidation::Strict if strict.is_empty() => Ok(()),
            FieldValidation::Strict => Err(error(decode::strict_message(&strict))),
        }
    }

    /// Decodes the body by its Content-Type: JSON (also when absent or `*/*`) or YAML
    /// (`application/yaml`); anything else is 415. Malformed bodies are 400 with the
    /// decoder's message (line and column); unknown and duplicate fields are handled per
    /// `fieldValidation`: 400 `<Kind> in version "<v>" cannot be handled as a <T>: strict
    /// decoding error: unknown field "spec.foo", duplicate field "spec.x"` under `Strict`,
    /// a `Warning` each under `Warn` (the default), nothing under `Ignore`.
    ///
    /// `<T>` is `T`'s Go type name ([`Payload::GO_TYPE`], for generated models the
    /// Kind); `<Kind>` and `<v>` are the body's own `kind` and `apiVersion` when it has
    /// them, else `<T>` and the resource's version.
    pub fn body<T: Payload + DeserializeOwned>(&mut self) -> Result<T, Status> {
        let content_type = self.0.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        if content_type.is_some_and(protobuf::is_protobuf) {
            return protobuf::decode_body(&self.0.body, self.0.resource);
        }
        let format = self.body_format()?;
        let target = T::GO_TYPE;
        let decoded =
            decode::decode::<T>(&self.0.body, format, target, self.0.resource.version).map_err(|e| match e {
                DecodeError::Unrecognized(message) | DecodeError::CannotHandle(message) => Status::bad_request(message),
            })?;
        let kind = decoded.kind.as_deref().unwrap_or(target);
        let version = decoded.version.as_deref().unwrap_or(self.0.resource.version);
        self.field_problems(decoded.strict, |strict| {
            Status::bad_request(format!(
                "{kind} in version {} cannot be handled as a {target}: {strict}",
                kube_apigen_core::go::fmt::quote(version)
            ))
        })?;
        Ok(decoded.value)
    }

    /// [`Call::body`] for bodies that may be left out (DELETE's `DeleteOptions`): an
    /// empty or all-whitespace body is `None`.
    pub fn optional_body<T: Payload + DeserializeOwned>(&mut self) -> Result<Option<T>, Status> {
        if self.0.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        self.body().map(Some)
    }

    /// Decodes a PATCH body by its Content-Type, which must name one of `allowed` (else
    /// 415 listing them). Malformed patches are 400 `error decoding patch: ...` (`error
    /// decoding YAML: ...` for apply). Duplicate fields of the patch (and unknown or
    /// duplicate fields of JSON Patch operations) are kept and reported, per
    /// `fieldValidation`, by [`Call::decode_patched`], with those of the patched object.
    pub fn patch(&mut self, allowed: &[PatchType]) -> Result<Patch, Status> {
        let content_type = self.0.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let (patch, strict) = patch::parse(&self.0.body, content_type, allowed)?;
        self.0.pending = strict;
        Ok(patch)
    }

    /// Decodes the object a patch produced (the stored object with [`Call::patch`]'s patch
    /// applied, as JSON), reporting unknown fields, with the patch's own problems, per
    /// `fieldValidation`. As in the API server, a patched object that does not decode,
    /// or has strict errors under `Strict`, is 422 ` "" is invalid: patch: Invalid value:
    /// "<patched object>": <error>`.
    pub fn decode_patched<T: DeserializeOwned>(&mut self, patched: Value) -> Result<T, Status> {
        let shown = patched.to_string();
        let invalid = |detail: String| {
            Status::invalid("", "", "", &[FieldError::invalid(&Path::ROOT.field("patch"), shown.as_str(), detail)])
        };
        let (value, unknown) = decode::from_value::<T>(patched).map_err(|e| invalid(e.to_string()))?;
        let mut strict = std::mem::take(&mut self.0.pending);
        strict.extend(unknown.iter().map(|path| StrictError::unknown(path)));
        self.field_problems(strict, invalid)?;
        Ok(value)
    }

    /// Runs `value`'s validation (`validate_update(old)` when `old` is given); errors are
    /// 422 `<Kind>.<group> "<metadata.name>" is invalid: [...]` for this resource. The
    /// name is read from `value` serialized, only when there are errors.
    pub fn validate<T: Validate + Serialize>(&self, value: &T, old: Option<&T>) -> Result<(), Status> {
        let errors = match old {
            None => value.validate(),
            Some(old) => value.validate_update(old),
        };
        if errors.is_empty() {
            return Ok(());
        }
        let serialized = serde_json::to_value(value).unwrap_or(Value::Null);
        let name = serialized.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        Err(Status::invalid(self.0.resource.kind, self.0.resource.group, name, &errors))
    }

    fn table_options(&self) -> Result<IncludeObject, Status> {
        match self.0.output.transform {
            Transform::Table(_) => IncludeObject::from_query(&self.query()),
            _ => Ok(IncludeObject::Metadata),
        }
    }

    /// Answers `code` with `value` as negotiated: JSON, or YAML when `Accept` prefers
    /// `application/yaml`; converted to a `meta.k8s.io` `Table` (one row for an object,
    /// one per item for a list, `includeObject` honored), `PartialObjectMetadata` or
    /// `PartialObjectMetadataList` when `Accept` asks for it with
    /// `;as=<Kind>;g=meta.k8s.io;v=v1` (or `v1beta1`). A `Status` is never converted.
    pub fn reply<T: Payload>(&self, code: StatusCode, value: &T) -> Result<Reply, Status> {
        let Output { format, transform } = self.0.output;
        let encode_error = |e: String| Status::internal_error(format!("unable to encode the response: {e}"));
        let body = if transform == Transform::None {
            encode(value, format, Some(self.0.resource))?
        } else {
            let options = TableOptions {
                convertor: self.0.table.as_deref(),
                include_object: self.table_options()?,
                no_headers: false,
                now_millis: jiff::Timestamp::now().as_millisecond(),
            };
            let value = serde_json::to_value(value).map_err(|e| encode_error(e.to_string()))?;
            let converted = table::convert(value, transform, self.0.resource, options)?;
            encode(&converted, format, Some(self.0.resource))?
        };
        Ok(Reply(response(code, format.content_type(), body)))
    }

    /// Answers with a watch stream: 200, `Content-Type: application/json;stream=watch`,
    /// chunked, one `{"type":"ADDED","object":{...}}` line per event (objects converted
    /// to one-row Tables when `Accept` asks for a Table, `columnDefinitions` only in the
    /// first). The response ends cleanly when `events` ends, or after `timeout_seconds`
    /// when it is positive (a negative timeout ends it at once, `None` or 0 never). A
    /// panic while producing an event ends the stream with an `ERROR` event carrying a
    /// 500 Status.
    pub fn watch<T: Payload + Send + 'static>(
        &self,
        events: WatchStream<T>,
        timeout_seconds: Option<i64>,
    ) -> Result<Reply, Status> {
        let Output { format, transform } = negotiate::negotiate_watch(accept::header(&self.0.headers))
            .ok_or_else(|| Status::not_acceptable(ACCEPTED_STREAM))?;
        let include_object = match transform {
            Transform::Table(_) => IncludeObject::from_query(&self.query())?,
            _ => IncludeObject::Metadata,
        };
        let stop: Pin<Box<dyn Future<Output = ()> + Send>> = match timeout_seconds {
            Some(seconds) if seconds < 0 => Box::pin(std::future::ready(())),
            Some(seconds) if seconds > 0 => {
                Box::pin(async move { tokio::time::sleep(Duration::from_secs(seconds.unsigned_abs())).await })
            }
            _ => Box::pin(std::future::pending()),
        };
        let mut encoder = Encoder {
            format,
            transform,
            resource: self.0.resource,
            table: self.0.table.clone(),
            include_object,
            sent_headers: false,
        };
        let mut failed = false;
        let lines = events
            .take_until(stop)
            .map(move |event| encoder.encode(&event))
            .take_while(move |line| {
                // An ERROR line for an object that would not encode is the last one.
                let more = !failed;
                failed = line.is_err();
                std::future::ready(more)
            })
            .map(|line| Ok::<Bytes, Infallible>(line.unwrap_or_else(|error| error)));
        let lines = AssertUnwindSafe(lines).catch_unwind().map(move |line| match line {
            Ok(line) => line,
            Err(_) => Ok(watch::error_event(&Status::internal_error(PANIC_MESSAGE), format)),
        });
        let content_type = match format {
            Format::Protobuf => kube_apigen_core::protobuf::STREAM_CONTENT_TYPE,
            Format::Json | Format::Yaml => watch::CONTENT_TYPE,
        };
        Ok(Reply(response(StatusCode::OK, content_type, Body::from_stream(lines))))
    }
}
