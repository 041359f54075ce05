//! The validation layer of kube-apigen's runtime: the [`Validate`] trait every generated
//! model implements, and the rules its impls call, each reporting Kubernetes field errors
//! ([`kube_apigen_core::field`]).
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

// The checks of k8s-openapi's types are generated code, which names the runtime as
// generated crates do (`kube_apigen::Validate`, `kube_apigen::field::Path`, ...).
#[cfg(feature = "k8s-openapi")]
extern crate self as kube_apigen;
#[cfg(feature = "k8s-openapi")]
#[allow(missing_docs)]
#[rustfmt::skip]
mod k8s;
#[cfg(feature = "k8s-openapi")]
use kube_apigen_core::field;

use kube_apigen_core::field::{ErrorList, Path};

/// Implemented by every generated model: collects all field errors of a value.
pub trait Validate {
    /// Pushes every broken rule of `self`, found at `path`, onto `errors`.
    ///
    /// `old` is the stored value before an update; rules that compare with it
    /// (CEL transition rules using `oldSelf`) only run when it is given.
    fn validate_into(&self, old: Option<&Self>, path: &Path<'_>, errors: &mut ErrorList);

    /// All field errors of a new object, in the order they were found.
    fn validate(&self) -> ErrorList {
        let mut errors = ErrorList::new();
        self.validate_into(None, &Path::ROOT, &mut errors);
        errors
    }

    /// All field errors of an update from `old` to `self`.
    fn validate_update(&self, old: &Self) -> ErrorList {
        let mut errors = ErrorList::new();
        self.validate_into(Some(old), &Path::ROOT, &mut errors);
        errors
    }
}
