//! `/healthz`, `/livez` and `/readyz`, as kube-apiserver serves them: `ok` (200) when every
//! check passes, else 500 listing the checks (`[+]ping ok`, `[-]storage failed: reason
//! withheld`) and `<endpoint> check failed`; `?verbose` lists them on success too, and
//! `/<endpoint>/<check>` runs one check.
//!
//! - `ping`: the server answers (every endpoint);
//! - `storage`: the storage backend answers a revision read within 2 seconds (`/healthz`
//!   and `/readyz`: an API server whose etcd is unreachable is not ready, but restarting it
//!   would not help);
//! - `shutdown`: the server is not shutting down (`/readyz`).

use std::time::Duration;

use kube_apigen::axum::Router;
use kube_apigen::axum::extract::{Path, RawQuery, State};
use kube_apigen::axum::http::{StatusCode, header};
use kube_apigen::axum::response::{IntoResponse, Response};
use kube_apigen::axum::routing::get;

use crate::Store;

/// How long the storage check waits for the backend.
const STORAGE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// The checks of an endpoint.
fn checks(endpoint: &str) -> &'static [&'static str] {
    match endpoint {
        "livez" => &["ping"],
        "readyz" => &["ping", "storage", "shutdown"],
        _ => &["ping", "storage"],
    }
}

/// The health endpoints over `store`.
pub fn routes(store: Store) -> Router {
    let mut router = Router::new();
    for endpoint in ["healthz", "livez", "readyz"] {
        router = router
            .route(
                &format!("/{endpoint}"),
                get(move |State(store): State<Store>, RawQuery(query): RawQuery| async move {
                    report(&store, endpoint, checks(endpoint), verbose(query.as_deref())).await
                }),
            )
            .route(
                &format!("/{endpoint}/{{check}}"),
                get(
                    move |State(store): State<Store>, Path(check): Path<String>, RawQuery(query): RawQuery| async move {
                        match checks(endpoint).iter().find(|name| **name == check) {
                            Some(name) => {
                                report(&store, endpoint, std::slice::from_ref(name), verbose(query.as_deref())).await
                            }
                            None => (StatusCode::NOT_FOUND, format!("{endpoint} check {check:?} not found\n"))
                                .into_response(),
                        }
                    },
                ),
            );
    }
    router.with_state(store)
}

fn verbose(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|p| p == "verbose" || p.starts_with("verbose=")))
}

/// Runs `names` and answers as kube-apiserver's health handlers do.
async fn report(store: &Store, endpoint: &str, names: &[&str], verbose: bool) -> Response {
    let mut lines = String::new();
    let mut failed = false;
    for name in names {
        match run(store, name).await {
            Ok(()) => lines.push_str(&format!("[+]{name} ok\n")),
            Err(reason) => {
                failed = true;
                tracing::warn!(check = name, endpoint, "health check failed: {reason}");
                lines.push_str(&format!("[-]{name} failed: reason withheld\n"));
            }
        }
    }
    let text = |body: String| ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body);
    if failed {
        return (StatusCode::INTERNAL_SERVER_ERROR, text(format!("{lines}{endpoint} check failed\n"))).into_response();
    }
    if verbose {
        return (StatusCode::OK, text(format!("{lines}{endpoint} check passed\n"))).into_response();
    }
    (StatusCode::OK, text("ok".to_owned())).into_response()
}

async fn run(store: &Store, check: &str) -> Result<(), String> {
    match check {
        "storage" => match tokio::time::timeout(STORAGE_CHECK_TIMEOUT, store.storage().revision()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer within {STORAGE_CHECK_TIMEOUT:?}")),
        },
        "shutdown" if store.is_shutting_down() => Err("the server is shutting down".to_owned()),
        _ => Ok(()),
    }
}
