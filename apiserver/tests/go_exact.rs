//! Where Kubernetes' behaviour is Go's standard library, through the reference server:
//! base64 bytes, Time and MicroTime layouts, YAML bodies with YAML 1.1 numbers, query
//! strings as `url.ParseQuery` reads them, and the token file. The functions behind these
//! are compared with Go itself in `tests/tests/go_exact.rs`.

mod harness;

use harness::{Api, CSRS, HPAS, csr, hpa, names};
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

#[tokio::test]
async fn times_are_read_with_go_layouts() {
    let api = Api::new();
    let created = api.create(HPAS, &hpa("web", json!({}))).await;
    let status_of = |last_scale_time: &str| {
        let mut object = created.clone();
        object["status"] = json!({"currentReplicas": 1, "desiredReplicas": 1, "lastScaleTime": last_scale_time});
        object
    };
    // Go's RFC 3339 layout takes a one-digit hour and a comma before the fraction.
    let (status, body) = api.put(&format!("{HPAS}/web/status"), &status_of("2024-01-02T3:04:05,5+01:00")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"]["lastScaleTime"], "2024-01-02T02:04:05Z");
    // ...and not a lowercase `t`, with Go's error.
    let (status, body) = api.put(&format!("{HPAS}/web/status"), &status_of("2024-01-02t03:04:05Z")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains(
            r#"parsing time "2024-01-02t03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "t03:04:05Z" as "T""#
        ),
        "{message}"
    );
}

#[tokio::test]
async fn query_strings_are_read_as_go_reads_them() {
    let api = Api::new();
    api.create(HPAS, &hpa("web", json!({"app": "web"}))).await;
    api.create(HPAS, &hpa("db", json!({"app": "db"}))).await;
    // Go's url.ParseQuery drops a pair with a malformed escape or a `;`, so these
    // parameters are absent: no 400 for the limit, no filtering by the selector.
    let (status, list) = api.get(&format!("{HPAS}?limit=%zz")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(names(&list), ["db", "web"]);
    let (status, list) = api.get(&format!("{HPAS}?labelSelector=app%3Dweb;x")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(names(&list), ["db", "web"]);
    // The well-formed pairs around them still count.
    let (_, list) = api.get(&format!("{HPAS}?labelSelector=app%3Dweb&a;b&limit=%zz")).await;
    assert_eq!(names(&list), ["web"]);
}
