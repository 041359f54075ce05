//! The reference API server: every resource of this repository's generated crate, served
//! by the registry library, with the strategy of certificate signing requests ([`csr`]).
//! The binary (`cargo run -p apiserver -- --listen 127.0.0.1:8080`) is described in its
//! `--help`.

pub mod csr;

use generated::api::certificates::v1::CertificateSigningRequest;
use kube_apigen_registry::{Server, ServerBuilder};

/// A builder of the reference server: every resource of the generated crate, with the
/// strategy of certificate signing requests; in memory until told otherwise.
pub fn builder() -> ServerBuilder {
    Server::builder(generated::server::api()).strategy::<CertificateSigningRequest>(csr::CsrStrategy)
}
