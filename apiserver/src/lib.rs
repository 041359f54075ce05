//! A reference API server for every resource of the generated crate.
//!
//! [`Store`] implements [`kube_apigen::dynamic::DynamicApi`] once, at the JSON level, generic
//! over [`kube_apigen::http::ResourceInfo`]; wrapped in [`kube_apigen::dynamic::Dynamic`] it
//! implements every generated resource trait, so [`server::router`] serves every resource
//! of `specs/`, including ones added later, without code per resource. What a kind needs
//! beyond the generic behaviour is in three small tables: typed validation
//! ([`hooks::Validators`], built by the binary), field selectors
//! ([`selector::selectable_fields`]) and registry strategies ([`strategy`]).
//!
//! The store keeps its objects in a [`storage::Storage`]: in memory, in an embedded
//! database ([`storage::MemoryStorage::durable`]) or in etcd ([`storage::etcd`]).
//! Patches and field ownership are the patch engine's ([`patch`]); serving over HTTP(S)
//! with graceful shutdown is [`server`] and [`tls`], with health endpoints ([`health`]),
//! metrics ([`metrics`]), request logs and limits ([`server::operable`]); bearer tokens are
//! [`auth`]. The binary (`cargo run -p apiserver -- --listen 127.0.0.1:8080`) is described
//! in its `--help`.

pub mod auth;
pub mod health;
pub mod hooks;
pub mod metrics;
pub mod patch;
pub mod selector;
pub mod server;
pub mod storage;
pub mod store;
pub mod strategy;
pub mod tls;

pub use store::{Store, StoreConfig};
