//! The validation layer of kube-apigen's runtime: the rules generated `Validate` impls
//! call, each reporting Kubernetes field errors ([`kube_apigen_core::field`]).
//!
//! - OpenAPI keywords and list semantics ([`rules`]) and custom resource formats
//!   ([`format`](mod@format));
//! - the object-meta conventions: names, namespaces, labels, annotations ([`meta`]);
//! - CEL rules (`x-kubernetes-validations`) with Kubernetes' CEL libraries ([`cel`]);
//! - custom resources checked at run time against their definition's schema, with the
//!   same rules ([`structural`]);
//! - Go's regular expressions, network address parsing and durations, as Kubernetes reads
//!   them ([`go`]).

pub mod cel;
pub mod format;
pub mod go;
pub mod meta;
pub mod rules;
pub mod structural;
