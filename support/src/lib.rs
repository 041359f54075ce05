//! Runtime support for crates written by `cargo xtask codegen`.
//!
//! Generated code links to this crate instead of repeating hand-written logic in every
//! output: the Kubernetes wire types with special encodings ([`IntOrString`], [`Quantity`],
//! [`Time`], [`MicroTime`], [`Bytes`]), the error model ([`Status`], [`validation`]) and
//! the identity of resources ([`Resource`]).

pub mod cel;
pub mod de;
pub mod discovery;
pub mod dynamic;
pub mod format;
pub mod go;
pub mod http;
pub mod meta;
pub mod protobuf;
pub mod resource;
pub mod rules;
pub mod schema;
pub mod status;
pub mod validation;
pub mod wire;

pub use resource::{Resource, ResourceInfo, Scope};
pub use status::{ListMeta, Status, StatusCause, StatusDetails, StatusFields};
pub use validation::Validate;
pub use wire::{Bytes, IntOrString, MicroTime, Quantity, Time};

/// Re-exported so generated crates depend on one version of each, chosen here.
pub use axum;
pub use serde;
pub use serde_json;
