//! What an operator sees of the binary: health endpoints, `/metrics`, request logs, the
//! in-flight limit and the request timeout.

mod harness;

use std::time::Duration;

use harness::process::{self, ServerProcess};
use harness::{HPAS, hpa};
use serde_json::json;

/// A list at a resourceVersion the server does not have: it waits (3 s) for it, so the
/// request stays in flight.
const SLOW_LIST: &str = "/apis/autoscaling/v2/horizontalpodautoscalers?resourceVersion=999999";

#[tokio::test]
async fn health_endpoints_list_their_checks() {
    let server = ServerProcess::start(&[]);
    for endpoint in ["/healthz", "/livez", "/readyz"] {
        let reply = server.request("GET", endpoint, None).await.unwrap();
        assert_eq!((reply.status, reply.body.as_str()), (200, "ok"), "{endpoint}");
    }
    let reply = server.request("GET", "/readyz?verbose", None).await.unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, "[+]ping ok\n[+]storage ok\n[+]shutdown ok\nreadyz check passed\n");
    let reply = server.request("GET", "/livez?verbose", None).await.unwrap();
    assert_eq!(reply.body, "[+]ping ok\nlivez check passed\n");
    let reply = server.request("GET", "/readyz/storage", None).await.unwrap();
    assert_eq!((reply.status, reply.body.as_str()), (200, "ok"));
    let reply = server.request("GET", "/livez/storage", None).await.unwrap();
    assert_eq!(reply.status, 404, "livez has no storage check: {}", reply.body);
    let reply = server.request("POST", "/readyz", Some(&json!({}))).await.unwrap();
    assert_eq!(reply.status, 405);
    assert_eq!(reply.json()["reason"], "MethodNotAllowed");
}

#[tokio::test]
async fn metrics_count_requests_objects_and_watches() {
    let server = ServerProcess::start(&[]);
    assert_eq!(server.request("POST", HPAS, Some(&hpa("a", json!({})))).await.unwrap().status, 201);
    assert_eq!(server.request("POST", HPAS, Some(&hpa("b", json!({})))).await.unwrap().status, 201);
    assert_eq!(server.request("POST", HPAS, Some(&hpa("a", json!({})))).await.unwrap().status, 409);
    assert_eq!(server.request("GET", &format!("{HPAS}/a"), None).await.unwrap().status, 200);
    // A watch stays open while the metrics are scraped.
    let watch_path = format!("{HPAS}?watch=true");
    let watching = {
        let addr = server.addr.clone();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let text = format!("GET {watch_path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
            stream.write_all(text.as_bytes()).await.unwrap();
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(stream);
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;

    let reply = server.request("GET", "/metrics", None).await.unwrap();
    assert_eq!(reply.status, 200);
    assert!(reply.head.to_ascii_lowercase().contains("content-type: application/openmetrics-text"), "{}", reply.head);
    let scrape = prometheus_parse::Scrape::parse(reply.body.lines().map(|l| Ok(l.to_owned())))
        .unwrap_or_else(|e| panic!("not the Prometheus text format ({e}):\n{}", reply.body));
    let value = |name: &str, labels: &[(&str, &str)]| -> Option<f64> {
        scrape.samples.iter().find_map(|sample| {
            let matches = sample.metric == name && labels.iter().all(|(k, v)| sample.labels.get(k) == Some(*v));
            match (matches, &sample.value) {
                (true, prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v)) => Some(*v),
                (true, prometheus_parse::Value::Untyped(v)) => Some(*v),
                _ => None,
            }
        })
    };
    let hpa_labels = [("group", "autoscaling"), ("version", "v2"), ("resource", "horizontalpodautoscalers")];
    let with = |extra: &[(&'static str, &'static str)]| -> Vec<(&str, &str)> {
        hpa_labels.iter().chain(extra).copied().collect()
    };
    assert_eq!(value("apiserver_request_total", &with(&[("verb", "create"), ("code", "201")])), Some(2.0));
    assert_eq!(value("apiserver_request_total", &with(&[("verb", "create"), ("code", "409")])), Some(1.0));
    assert_eq!(
        value("apiserver_request_total", &with(&[("verb", "get"), ("code", "200"), ("subresource", "")])),
        Some(1.0)
    );
    assert_eq!(value("apiserver_storage_objects", &[("resource", "horizontalpodautoscalers.autoscaling")]), Some(2.0));
    assert_eq!(
        value("apiserver_storage_objects", &[("resource", "certificatesigningrequests.certificates.k8s.io")]),
        Some(0.0)
    );
    assert_eq!(value("apiserver_longrunning_requests", &with(&[("verb", "watch")])), Some(1.0));
    // The scrape itself is in flight.
    assert_eq!(value("apiserver_current_inflight_requests", &[("request_kind", "readOnly")]), Some(1.0));
    let created = scrape
        .samples
        .iter()
        .find(|s| s.metric == "apiserver_request_duration_seconds_count" && s.labels.get("verb") == Some("create"));
    assert!(created.is_some(), "no duration histogram of creates:\n{}", reply.body);
    watching.abort();
}

#[tokio::test]
async fn requests_beyond_the_in_flight_limit_are_429() {
    let server = ServerProcess::start(&["--max-requests-inflight", "1"]);
    let addr = server.addr.clone();
    let slow = tokio::spawn(async move { process::request(&addr, "GET", SLOW_LIST, None).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let reply = server.request("GET", HPAS, None).await.unwrap();
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert!(reply.head.to_ascii_lowercase().contains("retry-after: 1"), "{}", reply.head);
    let status = reply.json();
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    // Probes are never refused.
    assert_eq!(server.request("GET", "/readyz", None).await.unwrap().status, 200);
    // The slow request ends (504: the version never comes), and the limit frees up.
    assert_eq!(slow.await.unwrap().unwrap().status, 504);
    assert_eq!(server.request("GET", HPAS, None).await.unwrap().status, 200);
}

#[tokio::test]
async fn requests_over_the_timeout_are_504() {
    let server = ServerProcess::start(&["--request-timeout", "500ms"]);
    let started = std::time::Instant::now();
    let reply = server.request("GET", SLOW_LIST, None).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "answered after {:?}", started.elapsed());
    assert_eq!(reply.status, 504);
    let status = reply.json();
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(
        status["message"],
        "Timeout: request did not complete within requested timeout - context deadline exceeded"
    );
    // Watches are long-running: the timeout does not cut them.
    let addr = server.addr.clone();
    let watch = tokio::spawn(async move {
        process::request(&addr, "GET", &format!("{HPAS}?watch=true&timeoutSeconds=1"), None).await
    });
    let reply = watch.await.unwrap().unwrap();
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[tokio::test]
async fn request_logs_name_method_path_status_user_and_agent() {
    let server = ServerProcess::start(&["--v", "1"]);
    assert_eq!(server.request("POST", HPAS, Some(&hpa("a", json!({})))).await.unwrap().status, 201);
    let line = server.stderr_line("POST");
    for part in [
        "kube_apigen_registry::request",
        "method=POST",
        &format!("path=\"{HPAS}\""),
        "version=HTTP/1.1",
        "status=201",
        "latency_ms=",
        "user=\"system:anonymous\"",
        "user_agent=\"\"",
    ] {
        assert!(line.contains(part), "{part} in {line}");
    }
    // Without -v, no request logs.
    let quiet = ServerProcess::start(&[]);
    assert_eq!(quiet.request("GET", HPAS, None).await.unwrap().status, 200);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!quiet.stderr.lock().unwrap().contains("kube_apigen_registry::request"));
}
