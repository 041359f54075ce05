//! The HTTP layer of kube-apigen's runtime: everything generated axum routers call.
//!
//! - [`http`]: between an axum request and a typed call into a server's trait
//!   implementation: authentication, query parameters, JSON, YAML and protobuf bodies,
//!   the four patch types, `fieldValidation`, output negotiation, Tables, watch streams,
//!   `Status` answers for every error;
//! - [`discovery`]: `/version`, `/api`, `/apis` (plain and aggregated), `/openapi/v3` and
//!   `/openapi/v2`, from a catalog of the served resources;
//! - [`dynamic`]: one JSON-level trait ([`dynamic::DynamicApi`]) that implements every
//!   generated resource trait, for servers that hold objects as JSON;
//! - [`auth`]: who is calling: the static token file and the identity of anonymous
//!   requests;
//! - [`go`]: Go's query strings, number parsing and CSV, as the API server reads them.

pub mod auth;
pub mod discovery;
pub mod dynamic;
pub mod go;
pub mod http;

/// Re-exported so that generated routers and the servers around them use one version.
pub use axum;
