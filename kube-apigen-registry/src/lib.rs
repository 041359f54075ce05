//! A Kubernetes-style API server as a library, for the API of any crate kube-apigen
//! generates.
//!
//! [`Store`] holds every resource of a generated crate's catalog as JSON objects in a
//! [`storage::Storage`] and answers every operation at the JSON level (it implements
//! `kube_apigen::dynamic::DynamicApi`); the crate's router, over the store, does the HTTP
//! work and checks each request with the generated models. What a kind does beyond the
//! generic behaviour is its [`Strategy`], registered per resource. [`Server`] puts it
//! together with what an operator needs around it (health endpoints, `/metrics`, request
//! logs, a request timeout and an in-flight limit, authentication, TLS) and serves it:
//!
//! ```ignore
//! let server = kube_apigen_registry::Server::builder(acme_api::server::api())
//!     .strategy::<acme_api::Widget>(WidgetStrategy)
//!     .build()?;
//! server.serve(tokio::net::TcpListener::bind("127.0.0.1:8080").await?, shutdown_signal()).await?;
//! ```
//!
//! Storage ([`storage`]): in memory (always), in a data directory with the `redb` feature
//! ([`storage::MemoryStorage::durable`]) or in etcd with the `etcd` feature
//! ([`storage::etcd`]). Patches and field ownership are `kube-apigen-patch`'s; HTTPS is
//! [`tls`] (feature `tls`), with health endpoints ([`health`]) and metrics ([`metrics`]).
//! CustomResourceDefinitions, when the API serves them, are checked and given their status
//! as the API server does it ([`crd`]); the kinds they define are served once they are
//! established.

pub mod builtin;
#[cfg(feature = "tls")]
pub mod certificates;
pub mod checks;
pub mod crd;
mod custom;
pub mod events;
pub mod health;
#[cfg(feature = "kube")]
pub mod local;
pub mod metrics;
pub mod object;
pub mod rbac;
pub mod reviews;
pub mod selector;
pub mod server;
pub mod storage;
pub mod store;
pub mod strategy;
#[cfg(feature = "tls")]
pub mod tls;

#[cfg(feature = "kube")]
pub use local::LocalServer;
pub use server::{AuthorizationMode, BuildError, Server, ServerBuilder, shutdown_signal};
pub use store::{Store, StoreConfig, UnknownResource};
pub use strategy::{Answer, Strategy, WriteContext, Written};
