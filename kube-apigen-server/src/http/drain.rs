//! Reading the rest of a request body that a handler left unread, so that the connection
//! can carry the next request.
//!
//! Many handlers answer without reading the body: discovery, `/version`, health checks,
//! errors decided from the headers. hyper then discards only the part of the body that has
//! already arrived when the response is written; if more is still on its way, it closes the
//! connection after the response, without saying so, and a client that sends its next
//! request on it gets a reset or a broken pipe. Go's HTTP server, the API server's, reads
//! and discards up to 256 KiB of an unread body before it writes the response, and
//! answers `Connection: close` when more is left. [`drain_unread_body`] does the same.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderValue, Version, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;

/// The most of an unread body [`drain_unread_body`] reads, as Go's HTTP server
/// (`maxPostHandlerReadBytes`).
pub const MAX_DRAINED_BYTES: usize = 256 * 1024;

/// Middleware reading what the handler left of an HTTP/1 request body before the response
/// is handed back, up to [`MAX_DRAINED_BYTES`], so that the connection stays open for the
/// next request. When more is left, or the body fails, or the client waits for a
/// `100 Continue` it was never sent, the response says `Connection: close` instead.
///
/// Generated routers apply it ([`super::status_errors`]); a server that routes other paths
/// around one applies it around everything:
/// `app.layer(axum::middleware::from_fn(kube_apigen::http::drain_unread_body))`. Nested
/// applications leave the work to the outermost one. HTTP/2 needs none of this (an unread
/// body ends its own stream only), so such requests pass through.
pub async fn drain_unread_body(mut request: Request, next: Next) -> Response {
    let http1 = matches!(request.version(), Version::HTTP_10 | Version::HTTP_11);
    if !http1 || request.body().is_end_stream() || request.extensions().get::<Draining>().is_some() {
        return next.run(request).await;
    }
    request.extensions_mut().insert(Draining);
    let expects_continue = request
        .headers()
        .get(header::EXPECT)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let left = Arc::new(Mutex::new(None));
    let request = request.map(|body| Body::new(Watched { body: Some(body), polled: false, left: Arc::clone(&left) }));
    let mut response = next.run(request).await;
    let unread = left.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    let reusable = match unread {
        None => true,
        // Go does not ask for a body only to throw it away.
        Some(Unread { polled: false, .. }) if expects_continue => false,
        Some(Unread { body, .. }) => drain(body).await,
    };
    if !reusable {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Marks a request whose body an outer [`drain_unread_body`] watches.
#[derive(Clone, Copy)]
struct Draining;

/// What the handler dropped of a body before its end.
struct Unread {
    body: Body,
    /// Whether anything was read of it (hyper sends `100 Continue` on the first read).
    polled: bool,
}

/// A request body that, dropped before its end, leaves itself in `left`.
struct Watched {
    body: Option<Body>,
    polled: bool,
    left: Arc<Mutex<Option<Unread>>>,
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        self.polled = true;
        let Some(body) = self.body.as_mut() else { return Poll::Ready(None) };
        let frame = Pin::new(body).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            self.body = None;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.body.as_ref().map_or_else(|| SizeHint::with_exact(0), Body::size_hint)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(body) = self.body.take().filter(|body| !body.is_end_stream()) {
            let unread = Unread { body, polled: self.polled };
            *self.left.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(unread);
        }
    }
}

/// Reads `body` to its end, unless more than [`MAX_DRAINED_BYTES`] are left (known up
/// front from `Content-Length`, or found on the way); whether the connection can go on.
async fn drain(mut body: Body) -> bool {
    if body.size_hint().lower() > MAX_DRAINED_BYTES as u64 {
        return false;
    }
    let mut read = 0;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return false };
        read += frame.data_ref().map_or(0, Bytes::len);
        if read > MAX_DRAINED_BYTES {
            return false;
        }
    }
    true
}
