//! The server as a test server (feature `kube`): a `kube::Client` that calls the router in
//! the same process, and a server on a free loopback port for tools that need a URL.

use std::net::SocketAddr;

use kube_apigen::axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{Server, Store};

impl Server {
    /// A `kube::Client` whose requests the router answers in this process: no socket, no
    /// TLS, each request a call of the router as a `tower::Service`. Its default namespace
    /// is `default`; it authenticates as nobody, so the server's authenticator sees an
    /// anonymous request (an administrator, unless the builder was given one).
    pub fn client(&self) -> kube::Client {
        client_of(self.router())
    }

    /// Serves on a free port of 127.0.0.1 (plain HTTP) in a task of the current Tokio
    /// runtime, for clients that need a URL or a kubeconfig (`kubectl`, other processes).
    /// The server stops with [`LocalServer::stop`], or when the `LocalServer` is dropped.
    pub async fn spawn_local(self) -> std::io::Result<LocalServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let address = listener.local_addr()?;
        let router = self.router();
        let store = self.store().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(self.serve(listener, async {
            // A dropped sender stops the server as a sent one does.
            let _ = stopped.await;
        }));
        Ok(LocalServer { address, router, store, stop, task })
    }
}

/// A [`Server`] serving on a loopback port ([`Server::spawn_local`]).
pub struct LocalServer {
    address: SocketAddr,
    router: Router,
    store: Store,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl LocalServer {
    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Its base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// A `kube::Client` calling the same router in process ([`Server::client`]).
    pub fn client(&self) -> kube::Client {
        client_of(self.router.clone())
    }

    /// The store, for reading and writing objects beside the HTTP API.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A kubeconfig (YAML) with one context, `local`, for this server's URL and no
    /// credentials: for `kubectl --kubeconfig` and other clients that read one.
    pub fn kubeconfig(&self) -> String {
        let url = self.url();
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: {url}
users:
- name: local
  user: {{}}
contexts:
- name: local
  context:
    cluster: local
    user: local
    namespace: default
current-context: local
"
        )
    }

    /// Stops accepting connections, ends every watch and returns once the requests in
    /// flight have been answered.
    pub async fn stop(self) -> std::io::Result<()> {
        // The server may have ended already (its listener failed): nothing to tell it.
        let _ = self.stop.send(());
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// A `kube::Client` over `router`, in process.
fn client_of(router: Router) -> kube::Client {
    kube::Client::new(router, "default")
}
