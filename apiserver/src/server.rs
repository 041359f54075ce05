//! The HTTP server around a [`Store`]: the generated router, and serving it with graceful
//! shutdown.

use std::future::Future;
use std::sync::Arc;

use support::axum::Router;
use support::dynamic::Dynamic;
use support::http::{Anonymous, Authenticator, Config};

use crate::Store;

/// The router of every resource of the generated crate (and discovery, OpenAPI), served
/// by `store`. Every error is a `Status`, as the API server answers (the generated router
/// sees to requests no route serves).
pub fn router(store: Store, config: Config) -> Router {
    generated::server::router(Dynamic(store), config)
}

/// The HTTP configuration: a body size limit, and who may call (`None`: everyone, as an
/// anonymous administrator).
pub fn config(max_body_bytes: usize, authenticator: Option<Arc<dyn Authenticator>>) -> Config {
    Config { max_body_bytes, authenticator: authenticator.unwrap_or_else(|| Arc::new(Anonymous)) }
}

/// Serves `store` on `listener` (a `tokio::net::TcpListener`, or a
/// [`crate::tls::TlsListener`]) until `shutdown` completes; then stops accepting
/// connections, ends every watch cleanly ([`Store::shutdown`]) and returns once the
/// requests in flight have been answered.
pub async fn serve<L>(
    listener: L,
    store: Store,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: support::axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    serve_router(listener, router(store.clone(), config), store, shutdown).await
}

/// [`serve`] with any router over `store`: the router of another generated crate, such
/// as `fixture_api::server::router(Dynamic(store.clone()), config)`.
pub async fn serve_router<L>(
    listener: L,
    app: Router,
    store: Store,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: support::axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    support::axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            store.shutdown();
        })
        .await
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
