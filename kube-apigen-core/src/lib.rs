//! The models layer of kube-apigen's runtime: what a generated crate needs to read and
//! write Kubernetes objects, and nothing of validation or HTTP.
//!
//! - the wire types with special encodings ([`IntOrString`], [`Quantity`], [`Time`],
//!   [`MicroTime`], [`Bytes`]) and the serde helpers generated models call ([`de`],
//!   [`ser`]);
//! - the error model: field errors ([`field`]) and [`Status`], the API server's error
//!   object;
//! - the identity of resources ([`Resource`], [`ResourceInfo`]);
//! - protobuf field codecs and the `k8s\0` envelope ([`protobuf`]);
//! - the vocabulary of the `x-kubernetes-*` extensions shared by the generator and the
//!   servers ([`schema`]), and Go's formatting of values in messages ([`go`]).
//!
//! Generated crates depend on the facade crate `kube-apigen`, which re-exports this one;
//! depend on this crate directly to write code against the models alone.

pub mod de;
pub mod field;
pub mod go;
pub mod protobuf;
pub mod resource;
pub mod schema;
pub mod ser;
pub mod status;
pub mod wire;

pub use resource::{Resource, ResourceInfo, Scope, Verb};
pub use status::{ListMeta, Status, StatusCause, StatusDetails, StatusFields};
pub use wire::{Bytes, IntOrString, MicroTime, Quantity, Time};
