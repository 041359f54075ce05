//! The reference API server: every resource of this repository's generated crate, served
//! by the registry library, with the strategy of certificate signing requests ([`csr`]).
//! The binary (`cargo run -p apiserver -- --listen 127.0.0.1:8080`) is described in its
//! `--help`.

pub mod csr;
