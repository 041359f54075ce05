//! Runtime support for crates written by `cargo xtask codegen`.
//!
//! Generated code links to this crate instead of repeating hand-written logic in every
//! output: the Kubernetes wire types with special encodings ([`IntOrString`], [`Quantity`],
//! [`Time`], [`MicroTime`], [`Bytes`]), the error model ([`Status`], [`validation`]) and
//! the identity of resources ([`Resource`]).

//!
//! # Features
//!
//! Without features the crate has what models need: the wire types, field errors and
//! [`Status`], [`Resource`], the protobuf codecs and the serde helpers of [`de`].
//! - `validation`: the rules generated `Validate` impls call ([`rules`], [`format`],
//!   [`meta`]) and CEL ([`cel`]).
//! - `server` (implies `validation`): the HTTP layer ([`http`]), discovery and OpenAPI
//!   serving ([`discovery`]) and JSON-level servers ([`dynamic`]), on axum and tokio.

#[cfg(feature = "validation")]
pub mod cel;
pub mod de;
#[cfg(feature = "server")]
pub mod discovery;
#[cfg(feature = "server")]
pub mod dynamic;
#[cfg(feature = "validation")]
pub mod format;
pub mod go;
#[cfg(feature = "server")]
pub mod http;
#[cfg(feature = "validation")]
pub mod meta;
pub mod protobuf;
pub mod resource;
#[cfg(feature = "validation")]
pub mod rules;
pub mod schema;
pub mod ser;
pub mod status;
pub mod validation;
pub mod wire;

pub use resource::{Resource, ResourceInfo, Scope};
pub use status::{ListMeta, Status, StatusCause, StatusDetails, StatusFields};
pub use validation::Validate;
pub use wire::{Bytes, IntOrString, MicroTime, Quantity, Time};

/// Re-exported so generated crates depend on one version of each, chosen here.
#[cfg(feature = "server")]
pub use axum;
pub use serde;
pub use serde_json;
