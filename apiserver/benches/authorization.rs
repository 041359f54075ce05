//! What authorization costs per request (`cargo bench -p apiserver --bench authorization`).
//!
//! The reference server in process (its router as a `tower::Service`), a bearer token
//! per user, and the same request over and over: alice lists the HorizontalPodAutoscalers
//! of `team-a` (empty), which a RoleBinding there lets her do. Three servers:
//!
//! - `AlwaysAllow`: the token is checked, nothing else;
//! - `RBAC`: the bootstrap policy and alice's Role and RoleBinding;
//! - `RBAC, 1,000 bindings`: and 1,000 ClusterRoleBindings of other users, which RBAC
//!   reads before the namespace's RoleBindings.
//!
//! Medians and 90th percentiles over `BENCH_ROUNDS` requests (default 2,000), after 200
//! of warm-up, the servers' rounds interleaved.

use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use kube_apigen::auth::TokenFile;
use kube_apigen::axum::Router;
use kube_apigen::axum::body::Body;
use kube_apigen::axum::http::{Method, Request, StatusCode, header};
use kube_apigen_registry::AuthorizationMode;
use serde_json::{Value, json};
use tower::ServiceExt;

const TOKENS: &str = "admin-token,admin,1,system:masters\nalice-token,alice,2\n";
const LIST: &str = "/apis/autoscaling/v2/namespaces/team-a/horizontalpodautoscalers";
const RBAC: &str = "/apis/rbac.authorization.k8s.io/v1";

async fn send(router: &Router, method: Method, uri: &str, token: &str, body: Option<Value>) -> StatusCode {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.map_or_else(Body::empty, |body| Body::from(body.to_string())))
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("an answer");
    let code = response.status();
    let _ = response.into_body().collect().await;
    code
}

fn binding(name: &str, user: &str, role_kind: &str, role: &str) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": if role_kind == "Role" { "RoleBinding" } else { "ClusterRoleBinding" },
        "metadata": { "name": name },
        "subjects": [{ "apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user }],
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role },
    })
}

async fn server(modes: &[AuthorizationMode], other_bindings: usize) -> Router {
    let tokens = TokenFile::parse(TOKENS, "tokens").expect("tokens");
    let server = apiserver::builder()
        .authenticator(Arc::new(tokens))
        .authorization(modes.iter().cloned())
        .build()
        .expect("the reference server builds");
    let router = server.router();
    if modes.contains(&AuthorizationMode::Rbac) {
        let role = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": { "name": "hpa-reader" },
            "rules": [{ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": ["list"] }],
        });
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}});
        assert_eq!(
            send(&router, Method::POST, "/api/v1/namespaces", "admin-token", Some(namespace)).await,
            StatusCode::CREATED
        );
        let roles = format!("{RBAC}/namespaces/team-a/roles");
        assert_eq!(send(&router, Method::POST, &roles, "admin-token", Some(role)).await, StatusCode::CREATED);
        let bindings = format!("{RBAC}/namespaces/team-a/rolebindings");
        let alice = binding("alice", "alice", "Role", "hpa-reader");
        assert_eq!(send(&router, Method::POST, &bindings, "admin-token", Some(alice)).await, StatusCode::CREATED);
        for n in 0..other_bindings {
            let other = binding(&format!("user-{n}"), &format!("user-{n}"), "ClusterRole", "view");
            let uri = format!("{RBAC}/clusterrolebindings");
            assert_eq!(send(&router, Method::POST, &uri, "admin-token", Some(other)).await, StatusCode::CREATED);
        }
    }
    assert_eq!(send(&router, Method::GET, LIST, "alice-token", None).await, StatusCode::OK);
    router
}

fn report(what: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what:<24} median {:>8.1} µs   p90 {:>8.1} µs   ({} requests)",
        at(0.5).as_secs_f64() * 1e6,
        at(0.9).as_secs_f64() * 1e6,
        samples.len()
    );
    at(0.5)
}

fn main() {
    let rounds: usize = std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let servers = [
            ("AlwaysAllow", server(&[AuthorizationMode::AlwaysAllow], 0).await),
            ("RBAC", server(&[AuthorizationMode::Rbac], 0).await),
            ("RBAC, 1,000 bindings", server(&[AuthorizationMode::Rbac], 1000).await),
        ];
        let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); servers.len()];
        for round in 0..rounds + 200 {
            for (index, (_, router)) in servers.iter().enumerate() {
                let start = Instant::now();
                let code = send(router, Method::GET, LIST, "alice-token", None).await;
                let took = start.elapsed();
                assert_eq!(code, StatusCode::OK);
                if round >= 200 {
                    samples[index].push(took);
                }
            }
        }
        let medians: Vec<Duration> =
            servers.iter().zip(samples).map(|((name, _), samples)| report(name, samples)).collect();
        let base = medians[0].as_secs_f64() * 1e6;
        for ((name, _), median) in servers.iter().zip(&medians).skip(1) {
            println!("{name:<24} costs {:>8.1} µs more than AlwaysAllow", median.as_secs_f64() * 1e6 - base);
        }
    });
}
