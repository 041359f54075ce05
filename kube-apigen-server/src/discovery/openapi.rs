//! Serving OpenAPI v3 documents the way kube-apiserver does (kube-openapi's `handler3`).
//!
//! - `GET /openapi/v3` lists every group-version document as
//!   `{"paths":{"apis/G/V":{"serverRelativeURL":"/openapi/v3/apis/G/V?hash=H"}}}`, keys
//!   sorted, where `H` is the upper-case hex SHA-512 of the document. It carries an `ETag`
//!   (the quoted hash of the listing itself) and answers `If-None-Match` with 304.
//! - `GET /openapi/v3/apis/G/V` serves the document with `ETag: "H"` and `Vary: Accept`.
//!   With `?hash=H` (what clients follow from the listing) the answer is immutable:
//!   `Cache-Control: public, immutable` and `Expires` a year ahead; with a stale hash it is a
//!   301 to the current URL. `If-None-Match` with the current ETag answers 304.
//!
//! The API server can also send the documents as protobuf; these are only ever sent as JSON,
//! and a request that does not accept JSON gets 406.

use std::fmt::Write as _;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use sha2::{Digest, Sha512};

use crate::http::accept;

/// The hash kube-apiserver puts in `?hash=` and in the `ETag` of an OpenAPI document: the
/// SHA-512 of its bytes in upper-case hex (128 characters).
pub fn openapi_hash(document: &[u8]) -> String {
    let digest = Sha512::digest(document);
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02X}");
    }
    hex
}

/// `/openapi/v3/<path>?hash=<hash>`, the `serverRelativeURL` of a document.
pub(crate) fn server_relative_url(path: &str, hash: &str) -> String {
    format!("/openapi/v3/{path}?hash={hash}")
}

/// Whether `Accept`, read as every endpoint reads it (`crate::http::accept`), admits
/// `application/json`.
pub(crate) fn accepts_json(headers: &HeaderMap) -> bool {
    accept::ranges(accept::header(headers)).any(|range| range.admits("application/json"))
}

/// Whether `If-None-Match` names the entity tag `etag` (given unquoted): `*`, or the tag in
/// a comma-separated list, compared weakly (`W/"x"` matches `"x"`), as Go's
/// `http.ServeContent` does.
pub(crate) fn none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| {
            tag == "*" || {
                let tag = tag.strip_prefix("W/").unwrap_or(tag);
                tag.strip_prefix('"').and_then(|t| t.strip_suffix('"')) == Some(etag)
            }
        })
}

/// The `hash` query parameter, if present and non-empty.
pub(crate) fn hash_param(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(name, _)| *name == "hash")
        .map(|(_, value)| value)
        .filter(|value| !value.is_empty())
}

/// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`) one year from now: the `Expires` of an
/// immutable document.
fn expires_in_a_year() -> Option<HeaderValue> {
    let now = jiff::Timestamp::now().to_zoned_datetime(jiff::tz::TimeZone::UTC);
    let later = now.checked_add(jiff::Span::new().years(1)).ok()?;
    HeaderValue::from_str(&later.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()).ok()
}

/// A JSON body with its `ETag`, or a 304 when the client already has it.
pub(crate) fn conditional_json(
    request: &HeaderMap,
    mut response_headers: HeaderMap,
    etag: &str,
    body: Body,
) -> Response {
    let quoted = format!("\"{etag}\"");
    if let Ok(value) = HeaderValue::from_str(&quoted) {
        response_headers.insert(header::ETAG, value);
    }
    let (status, body) = if none_match(request, etag) {
        (StatusCode::NOT_MODIFIED, Body::empty())
    } else {
        response_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        (StatusCode::OK, body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = response_headers;
    response
}

/// A group-version document: 301 to the current hash if `?hash=` is stale, otherwise the
/// document (or 304), immutable when asked for by hash.
pub(crate) fn document_response(
    request: &HeaderMap,
    query: Option<&str>,
    path: &str,
    document: &'static str,
    etag: &str,
) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    if let Some(hash) = hash_param(query) {
        if hash != etag {
            let location = server_relative_url(path, etag);
            let body = format!("<a href=\"{location}\">Moved Permanently</a>.\n\n");
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = StatusCode::MOVED_PERMANENTLY;
            if let Ok(value) = HeaderValue::from_str(&location) {
                headers.insert(header::LOCATION, value);
            }
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            *response.headers_mut() = headers;
            return response;
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, immutable"));
        if let Some(expires) = expires_in_a_year() {
            headers.insert(header::EXPIRES, expires);
        }
    }
    conditional_json(request, headers, etag, Body::from(document))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: header::HeaderName, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn accept() {
        assert!(accepts_json(&HeaderMap::new()));
        assert!(accepts_json(&headers(header::ACCEPT, "application/json")));
        assert!(accepts_json(&headers(header::ACCEPT, "*/*")));
        assert!(accepts_json(&headers(
            header::ACCEPT,
            "application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json;q=0.9"
        )));
        assert!(!accepts_json(&headers(header::ACCEPT, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf")));
        assert!(!accepts_json(&headers(header::ACCEPT, "application/json;q=0")));
        assert!(!accepts_json(&headers(header::ACCEPT, "text/html")));
        assert!(accepts_json(&headers(header::ACCEPT, "application/json;q=high")), "a malformed q is no refusal");
        // An empty header is an absent one, as for kube-apiserver.
        assert!(accepts_json(&headers(header::ACCEPT, "")));
        // Only the first line counts, as for kube-apiserver.
        let mut two_lines = headers(header::ACCEPT, "text/html");
        two_lines.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!accepts_json(&two_lines));
    }

    #[test]
    fn if_none_match() {
        assert!(none_match(&headers(header::IF_NONE_MATCH, "\"AB\""), "AB"));
        assert!(none_match(&headers(header::IF_NONE_MATCH, "\"x\", W/\"AB\""), "AB"));
        assert!(none_match(&headers(header::IF_NONE_MATCH, "*"), "AB"));
        assert!(!none_match(&headers(header::IF_NONE_MATCH, "\"ABC\""), "AB"));
        assert!(!none_match(&HeaderMap::new(), "AB"));
    }

    #[test]
    fn hash() {
        assert_eq!(hash_param(Some("hash=AB")), Some("AB"));
        assert_eq!(hash_param(Some("x=1&hash=AB&hash=CD")), Some("AB"));
        assert_eq!(hash_param(Some("hash=")), None);
        assert_eq!(hash_param(Some("hashx=1")), None);
        assert_eq!(hash_param(None), None);
        // SHA-512("") as kube-openapi prints it.
        assert_eq!(
            openapi_hash(b""),
            "CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE\
             47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E"
        );
    }
}
