//! Where Kubernetes' behaviour is Go's standard library, through the reference server:
//! base64 bytes, Time and MicroTime layouts, YAML bodies with YAML 1.1 numbers, query
//! strings as `url.ParseQuery` reads them, and the token file. The functions behind these
//! are compared with Go itself in `tests/tests/go_exact.rs`.

mod harness;

use std::sync::Arc;

use harness::{Api, CSRS, HPAS, csr, hpa, names};
use kube_apigen::auth::TokenFile;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::http::{Method, Request, StatusCode, header};
use serde_json::json;

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

#[tokio::test]
async fn the_token_file_is_read_as_kubernetes_reads_it() {
    // An empty token is skipped (with a warning), not an error; fields are not trimmed;
    // the later record of a repeated token wins.
    let text = "t1,alice,uid-a,\"devs,ops\"\n,nobody,0\nt2, bob ,uid-b\nt1,alice2,uid-a2,devs\n";
    let tokens = TokenFile::parse(text, "tokens.csv").unwrap();
    assert_eq!(tokens.warnings().len(), 2);
    let api = Api::with(|_| {}, Some(Arc::new(tokens)));
    let whoami = |token: &'static str| {
        let api = &api;
        async move {
            let mut object = csr("unused", "example.com/signer");
            object["metadata"] = json!({"generateName": "request-"});
            let request = Request::builder()
                .method(Method::POST)
                .uri(CSRS)
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::AUTHORIZATION, token)
                .body(Body::from(object.to_string()))
                .unwrap();
            let (status, body) = api.send(request).await;
            (status, body["spec"]["username"].clone())
        }
    };
    assert_eq!(whoami("Bearer t1").await, (StatusCode::CREATED, json!("alice2")));
    assert_eq!(whoami("Bearer t2").await.1, json!(" bob "));
    // An empty token authenticates nobody, and two spaces leave the token empty.
    assert_eq!(whoami("Bearer ").await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(whoami("Bearer  t1").await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn yaml_bodies_read_numbers_and_booleans_by_yaml_1_1() {
    let api = Api::new();
    let post_yaml = |body: &'static str| {
        let request = Request::builder()
            .method(Method::POST)
            .uri(HPAS)
            .header(header::CONTENT_TYPE, "application/yaml")
            .body(Body::from(body))
            .unwrap();
        api.send(request)
    };
    let hpa = "metadata:\n  name: octal\nspec:\n  minReplicas: 010\n  maxReplicas: 0x1_0\n  scaleTargetRef: {kind: Deployment, name: web}\n";
    let (status, created) = post_yaml(hpa).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["spec"]["minReplicas"], 8, "010 is octal in YAML 1.1");
    assert_eq!(created["spec"]["maxReplicas"], 16);
    // `on` is a boolean, which a label value cannot be; quoted, it is a string.
    let labelled = "metadata:\n  name: on-off\n  labels: {enabled: on}\nspec:\n  maxReplicas: 2\n  scaleTargetRef: {kind: Deployment, name: web}\n";
    let (status, body) = post_yaml(labelled).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let quoted = "metadata:\n  name: on-off\n  labels: {enabled: 'on'}\nspec:\n  maxReplicas: 2\n  scaleTargetRef: {kind: Deployment, name: web}\n";
    let (status, created) = post_yaml(quoted).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["metadata"]["labels"]["enabled"], "on");
}
