//! Where Kubernetes' behaviour is Go's standard library, through the reference server:
//! base64 bytes, Time and MicroTime layouts, YAML bodies with YAML 1.1 numbers, query
//! strings as `url.ParseQuery` reads them, and the token file. The functions behind these
//! are compared with Go itself in `tests/tests/go_exact.rs`.

mod harness;

use harness::{Api, CSRS, csr};
use serde_json::json;
use support::axum::http::StatusCode;

#[tokio::test]
async fn base64_with_trailing_bits_is_accepted_and_stored_canonical() {
    let api = Api::new();
    let mut object = csr("trailing-bits", "example.com/signer");
    // `aGVsbG9=` is "hello" with a non-zero unused bit in its last character.
    object["spec"]["request"] = json!("aGVsbG9=");
    let created = api.create(CSRS, &object).await;
    assert_eq!(created["spec"]["request"], "aGVsbG8=");

    object["metadata"]["name"] = json!("unpadded");
    object["spec"]["request"] = json!("aGVsbG8");
    let (status, body) = api.post(CSRS, &object).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}
