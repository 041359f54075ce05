//! Every error response a `Status`, also for requests no handler sees.

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::middleware::from_fn;
use axum::response::Response;
use serde::de::DeserializeOwned;

use super::call::status_response;
use super::drain::drain_unread_body;
use super::negotiate::Format;
use kube_apigen_core::Status;
use kube_apigen_core::status::reason;

/// Wraps a complete router so that requests no handler sees get Kubernetes `Status` errors
/// too, as the API server's: a path no route serves is 404 [`Status::route_not_found`], a
/// method a path does not serve 405 [`Status::route_method_not_allowed`]. (Handlers read
/// their path with [`PathParams`], whose rejections are `Status` objects as well.) Every
/// request, answered by a handler or not, goes through [`drain_unread_body`].
pub fn status_errors(router: Router) -> Router {
    router
        .fallback(|| async { status_response(&Status::route_not_found(), Format::Json) })
        .method_not_allowed_fallback(|| async { status_response(&Status::route_method_not_allowed(), Format::Json) })
        .layer(from_fn(drain_unread_body))
}

/// axum's `Path` extractor, rejecting with a `Status` (400 `BadRequest` with axum's text,
/// e.g. for a path segment that is not UTF-8) instead of plain text.
#[derive(Debug)]
pub struct PathParams<T>(pub T);

impl<T, S> FromRequestParts<S> for PathParams<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(PathParams(value)),
            Err(rejection) => Err(as_status(axum::response::IntoResponse::into_response(rejection)).await),
        }
    }
}

/// A plain-text (or empty) error response as a `Status` with the same code and text.
async fn as_status(response: Response) -> Response {
    let code = response.status();
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    let message = if text.is_empty() { code.canonical_reason().unwrap_or("").to_owned() } else { text };
    let mut fixed = status_response(&Status::failure(code.as_u16(), reason_of(code), message), Format::Json);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            fixed.headers_mut().append(name, value.clone());
        }
    }
    fixed
}

/// The `Status` reason Kubernetes gives a status code.
fn reason_of(code: StatusCode) -> &'static str {
    match code.as_u16() {
        400 => reason::BAD_REQUEST,
        401 => reason::UNAUTHORIZED,
        403 => reason::FORBIDDEN,
        404 => reason::NOT_FOUND,
        405 => reason::METHOD_NOT_ALLOWED,
        406 => reason::NOT_ACCEPTABLE,
        409 => reason::CONFLICT,
        410 => reason::GONE,
        413 => reason::REQUEST_ENTITY_TOO_LARGE,
        415 => reason::UNSUPPORTED_MEDIA_TYPE,
        422 => reason::INVALID,
        429 => reason::TOO_MANY_REQUESTS,
        500 => reason::INTERNAL_ERROR,
        503 => reason::SERVICE_UNAVAILABLE,
        504 => reason::TIMEOUT,
        _ => "",
    }
}
